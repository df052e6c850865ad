// Package entities is the E11 slot's model-free half: it extracts the named
// things a memory mentions — identifiers, dotted calls, library/tool/product
// names from the embedded entities.txt, file paths, error codes and versions —
// into a canonical set, and compares sets by Jaccard overlap. The entity
// vector (a model embedding of the set) comes from a later model-backed slot.
// Everything here is pure and safe for concurrent use.
package entities

import (
	"crypto/sha256"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/internal/needle"
)

// Kind prefixes of canonical entity names ("lib:rocksdb").
const (
	KindLib   = "lib"   // a name from entities.txt
	KindIdent = "ident" // a CamelCase, camelCase or snake_case identifier
	KindCall  = "call"  // a dotted call such as http.ListenAndServe
	KindPath  = "path"  // a file path
	KindError = "err"   // errno names, signals, compiler codes, error types, HTTP status, exit status
	KindVer   = "ver"   // a version number
)

//go:embed entities.txt
var entitiesTxt string

// ListSHA256 is the sha256 of the embedded name list; it is part of the E11
// producer identity.
var ListSHA256 = sha256.Sum256([]byte(entitiesTxt))

// names maps exact surface forms (case-sensitive) and lower-case canonical
// names (case-insensitive entries) to canonical names.
type nameList struct {
	exact map[string]string
	fold  map[string]string
}

var known = mustParseList(entitiesTxt)

func mustParseList(s string) nameList {
	l, err := parseList(s)
	if err != nil {
		panic(fmt.Sprintf("entities: embedded entities.txt: %v", err))
	}
	return l
}

// parseList reads the entities.txt format (see the file's header).
func parseList(s string) (nameList, error) {
	l := nameList{exact: map[string]string{}, fold: map[string]string{}}
	for i, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		canon := f[0]
		if canon != strings.ToLower(canon) {
			return l, fmt.Errorf("line %d: canonical name %q must be lower case", i+1, canon)
		}
		if len(f) == 1 {
			if prev, dup := l.fold[canon]; dup {
				return l, fmt.Errorf("line %d: %q already listed (as %q)", i+1, canon, prev)
			}
			l.fold[canon] = canon
			continue
		}
		for _, sf := range f[1:] {
			if prev, dup := l.exact[sf]; dup && prev != canon {
				return l, fmt.Errorf("line %d: surface form %q already names %q", i+1, sf, prev)
			}
			l.exact[sf] = canon
		}
	}
	return l, nil
}

// lookup returns the canonical name a token spells, if any.
func (l nameList) lookup(tok string) (string, bool) {
	if c, ok := l.exact[tok]; ok {
		return c, true
	}
	c, ok := l.fold[strings.ToLower(tok)]
	return c, ok
}

// Names returns the number of canonical names in the embedded list.
func Names() int {
	seen := map[string]bool{}
	for _, c := range known.exact {
		seen[c] = true
	}
	for _, c := range known.fold {
		seen[c] = true
	}
	return len(seen)
}

var (
	errnos = func() map[string]bool {
		m := map[string]bool{}
		for _, e := range strings.Fields(`EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF ECHILD EAGAIN
			ENOMEM EACCES EFAULT EBUSY EEXIST EXDEV ENODEV ENOTDIR EISDIR EINVAL ENFILE EMFILE ENOTTY
			ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK EPIPE EDOM ERANGE EDEADLK ENAMETOOLONG ENOLCK ENOSYS
			ENOTEMPTY ELOOP EWOULDBLOCK ENOMSG EOVERFLOW EILSEQ ENOTSOCK EDESTADDRREQ EMSGSIZE EPROTOTYPE
			ENOPROTOOPT EPROTONOSUPPORT EOPNOTSUPP ENOTSUP EAFNOSUPPORT EADDRINUSE EADDRNOTAVAIL ENETDOWN
			ENETUNREACH ECONNABORTED ECONNRESET ENOBUFS EISCONN ENOTCONN ETIMEDOUT ECONNREFUSED EHOSTDOWN
			EHOSTUNREACH EALREADY EINPROGRESS ESTALE EDQUOT ECANCELED EOWNERDEAD EPROTO EOF`) {
			m[e] = true
		}
		return m
	}()
	reSignal  = regexp.MustCompile(`^SIG[A-Z]{2,7}$`)
	reCode    = regexp.MustCompile(`^(E|TS|CS|C|W|SC|SA|ST|PLW|PLE|ERR)\d{3,5}$`)
	reVersion = regexp.MustCompile(`^v?\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.]+)?$`)
	// reHTTP and reExit run only on a text holding one of their literals
	// (most code holds neither "exit" nor a status phrase): TestNeedles and
	// FuzzNeedles check the literals against the expressions.
	reHTTP = needle.MustCompile(`(?i)\b(?:HTTP(?:/\d(?:\.\d)?)?|status(?: code)?:?)\s+([1-5]\d\d)\b|\b([1-5]\d\d) (?:Not Found|Bad Request|Unauthorized|Forbidden|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout|Too Many Requests|Conflict|Method Not Allowed|Moved Permanently|Not Modified)\b`,
		needle.Set{Needles: []string{"http", "status", "not found", "bad request", "unauthorized", "forbidden", "internal server error",
			"bad gateway", "service unavailable", "gateway timeout", "too many requests", "conflict", "method not allowed",
			"moved permanently", "not modified"}})
	reExit     = needle.MustCompile(`(?i)\bexit(?:ed)?(?: with)? (?:status|code) (\d{1,3})\b`, needle.Set{Needles: []string{"exit"}})
	reLineCol  = regexp.MustCompile(`(:\d+){1,2}$`)
	extensions = func() map[string]bool {
		m := map[string]bool{}
		for _, e := range strings.Fields(`go mod sum py pyi js mjs cjs jsx ts tsx rs c h cc cpp hpp cs java kt
			scala rb php pl lua hs ml ex exs erl clj jl swift m sql sh bash zsh ps1 html htm css scss vue svelte
			json yaml yml toml xml csv tsv md rst txt ini cfg conf env lock proto graphql tf hcl dockerfile
			gradle cmake mk onnx bin log ipynb`) {
			m[e] = true
		}
		return m
	}()
)

// rawToken is one candidate word of the text and the byte that follows it.
type rawToken struct {
	s    string
	next byte
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_./-+#:~@", r)
}

// tokens splits text into runs of token runes with trailing punctuation
// trimmed ("main.go:" → "main.go", "done." → "done").
func tokens(text string) []rawToken {
	var out []rawToken
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		s := strings.TrimRight(text[start:end], ".:-+@")
		s = strings.TrimLeft(s, ":-+@#")
		var next byte
		if end < len(text) {
			next = text[end]
		}
		if s != "" {
			out = append(out, rawToken{s, next})
		}
		start = -1
	}
	for i, r := range text {
		if isTokenRune(r) {
			if start < 0 {
				start = i
			}
		} else {
			flush(i)
		}
	}
	flush(len(text))
	return out
}

// Extract returns the canonical entity set of text, sorted and without
// duplicates: "lib:rocksdb", "ident:getUserByID", "call:http.ListenAndServe",
// "path:cmd/cgraph/main.go", "err:ENOENT", "err:http-404", "err:exit-1",
// "ver:1.7.15". Cost O(len(text)).
func Extract(text string) []string {
	set := map[string]bool{}
	add := func(kind, name string) { set[kind+":"+name] = true }
	toks := tokens(text)
	for i, t := range toks {
		var prev string
		if i > 0 {
			prev = toks[i-1].s
		}
		classify(t, prev, add)
	}
	for _, m := range reHTTP.FindAllStringSubmatch(text, -1) {
		add(KindError, "http-"+m[1]+m[2])
	}
	for _, m := range reExit.FindAllStringSubmatch(text, -1) {
		add(KindError, "exit-"+m[1])
	}
	out := make([]string, 0, len(set))
	for e := range set {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}

// classify adds the entities one token names.
func classify(t rawToken, prev string, add func(kind, name string)) {
	s := t.s
	if c, ok := known.lookup(s); ok {
		add(KindLib, c)
		return
	}
	switch {
	case errnos[s] || reSignal.MatchString(s) || reCode.MatchString(s):
		add(KindError, s)
		return
	case reVersion.MatchString(s):
		if v := strings.TrimPrefix(s, "v"); strings.HasPrefix(s, "v") || strings.Count(v, ".") >= 2 || isKnown(prev) {
			add(KindVer, v)
			if c, ok := known.lookup(prev); ok {
				add(KindVer, c+"@"+v)
			}
		}
		return
	case strings.Contains(s, "://"):
		return // URLs are not entities here
	}
	if p, ok := asPath(s); ok && t.next != '(' { // res.json( is a call, not a file
		add(KindPath, p)
		return
	}
	if strings.ContainsAny(s, "./") {
		if t.next == '(' && strings.Contains(s, ".") && !strings.Contains(s, "/") && identLike(s) {
			add(KindCall, s)
		}
		for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '.' }) {
			classifySegment(seg, add)
		}
		return
	}
	classifySegment(s, add)
}

func isKnown(tok string) bool { _, ok := known.lookup(tok); return ok }

// classifySegment handles one identifier-shaped piece.
func classifySegment(s string, add func(kind, name string)) {
	if c, ok := known.lookup(s); ok {
		add(KindLib, c)
		return
	}
	if !isIdentifier(s) {
		return
	}
	if errorName(s) {
		add(KindError, s)
		return
	}
	add(KindIdent, s)
}

// asPath recognises file paths: a name with a known extension (main.go,
// src/app.tsx) or anything starting with /, ./, ../ or ~/ . A trailing :line
// or :line:col is dropped.
func asPath(s string) (string, bool) {
	s = strings.TrimRight(reLineCol.ReplaceAllString(s, ""), "/")
	if strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/") ||
		(strings.HasPrefix(s, "/") && len(s) > 2 && strings.Count(s, "/") >= 2) {
		return s, true
	}
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return "", false
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	ext := strings.ToLower(s[dot+1:])
	if !extensions[ext] || base == "" || base[0] == '.' && strings.Count(base, ".") == 1 {
		return "", false
	}
	// "fmt.go" is a file, but "os.Exit" is not: the extension must be lower case.
	if s[dot+1:] != ext {
		return "", false
	}
	return s, true
}

// identLike reports whether every dot-separated part is identifier-shaped.
func identLike(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if p == "" || !(unicode.IsLetter(rune(p[0])) || p[0] == '_') {
			return false
		}
	}
	return true
}

// isIdentifier reports whether s is a code identifier worth keeping: it has
// a case hump (getUser, HTTPServer, ListenAndServe) or an inner underscore
// (snake_case, MAX_RETRIES), starts with a letter or underscore and has only
// letters, digits and underscores.
func isIdentifier(s string) bool {
	if len(s) < 3 {
		return false
	}
	rs := []rune(s)
	if !(unicode.IsLetter(rs[0]) || rs[0] == '_') {
		return false
	}
	hump, under, letters := false, false, 0
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
		case r == '_':
			if i > 0 && i < len(rs)-1 {
				under = true
			}
		default:
			return false
		}
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
			unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			hump = true // getUser, utf8Decode, OSError
		}
	}
	return letters >= 2 && (hump || under)
}

// errorName reports identifiers that name errors: KeyError, IOException,
// ErrNotFound, io.EOF-style names are handled as errnos.
func errorName(s string) bool {
	return strings.HasSuffix(s, "Error") || strings.HasSuffix(s, "Exception") ||
		(strings.HasPrefix(s, "Err") && len(s) > 3 && unicode.IsUpper(rune(s[3])))
}

// Jaccard returns |a ∩ b| / |a ∪ b| of two sorted, duplicate-free sets, in
// [0, 1]; 0 when both are empty. Cost O(len(a)+len(b)).
func Jaccard(a, b []string) float64 { return fingerprint.SortedJaccard(a, b) }
