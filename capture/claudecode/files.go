package claudecode

import (
	"path"
	"regexp"
	"strings"
)

// inputPathKeys are the tool input fields that name a file.
var inputPathKeys = []string{"file_path", "notebook_path", "path"}

// fileTaking are shell programs whose plain arguments are files.
var fileTaking = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "sed": true,
	"vim": true, "vi": true, "nano": true, "code": true, "touch": true, "rm": true,
	"mv": true, "cp": true, "chmod": true, "python": true, "python3": true,
	"node": true, "ts-node": true, "tsx": true, "deno": true, "pytest": true, "black": true,
	"ruff": true, "mypy": true, "eslint": true, "prettier": true, "gofmt": true,
	"git": true, "go": true, "bash": true, "sh": true, "wc": true, "diff": true,
	"jq": true, "source": true,
}

// fileShape is a token that looks like a file: path characters and an
// extension of letters (so "1.2.3", "s/a/b/" and "./..." do not).
var fileShape = regexp.MustCompile(`^[\w@~./+-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,7}$`)

// bareNames are files without an extension worth naming.
var bareNames = map[string]bool{"Makefile": true, "Dockerfile": true, "Justfile": true, "Procfile": true}

// commandFiles returns the files a shell command obviously touches: the
// file-shaped arguments of programs that take files. It does not try to be
// a shell; anything unusual is left out.
func commandFiles(cmd string) []string {
	var out []string
	for _, simple := range splitSimple(cmd) {
		words := shellWords(simple)
		for len(words) > 0 && strings.Contains(words[0], "=") { // FOO=1 cmd
			words = words[1:]
		}
		if len(words) < 2 || !fileTaking[path.Base(words[0])] {
			continue
		}
		for _, w := range words[1:] {
			w, _, _ = strings.Cut(w, "::") // pytest node ids
			if strings.HasPrefix(w, "-") || strings.Contains(w, "://") {
				continue
			}
			if fileShape.MatchString(w) || bareNames[path.Base(w)] {
				out = append(out, w)
			}
		}
	}
	return out
}

// splitSimple splits a command line at ;, &&, || and | (outside quotes).
func splitSimple(cmd string) []string {
	var parts []string
	var b strings.Builder
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';' || c == '|' || c == '&' || c == '\n':
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(parts, b.String())
}

// shellWords splits a simple command into words, removing quotes.
func shellWords(s string) []string {
	var words []string
	var b strings.Builder
	var quote byte
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
		case c == '\'' || c == '"':
			quote, in = c, true
			continue
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
			continue
		}
		b.WriteByte(c)
		in = true
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// relTo makes p relative to dir when it lies under it.
func relTo(p, dir string) string {
	if dir == "" || !strings.HasPrefix(p, "/") {
		return p
	}
	d := strings.TrimSuffix(dir, "/") + "/"
	if strings.HasPrefix(p, d) {
		return p[len(d):]
	}
	return p
}
