// Package redact removes secrets from text before cgraph stores or indexes
// it. Transcripts of coding sessions carry API keys, tokens, passwords,
// private keys and connection strings; a memory store keeps text for years
// and shows it to agents, so a secret must never reach it. The engine runs
// a Redactor over every memory's content on every write path (CLI, MCP,
// HTTP, hooks, transcript ingest) before anything is embedded or written.
//
// Two kinds of rule:
//
//   - shapes: tokens whose form names them (AWS access key ids, GitHub,
//     GitLab, Slack, Stripe, OpenAI, Anthropic, Google, npm, PyPI, SendGrid
//     and Hugging Face tokens, JWTs, PEM private key blocks), the password of
//     a URL (scheme://user:PASSWORD@host), and the credentials of an HTTP
//     Authorization header;
//   - assignments: a value given to a word that names a secret (password,
//     passwd, pwd, secret, token, api_key, apikey, access_key, private_key,
//     client_secret, auth, credential …) after "=", ":" or "is", when the
//     value is not an obvious placeholder — for password-like words any
//     value of 6+ characters, for key-like words one of 16+ characters with
//     the character mix of a random string (Shannon entropy ≥ 3.0 bits per
//     character, and not all hex of a hash's length when the word is only
//     "key").
//
// A redacted span becomes "[REDACTED:KIND]" (KIND names the rule), so the
// memory still says that a token was there and of what kind. Add rules with
// Redactor.Add (a name and a regular expression whose first group, or
// whole match, is the secret) or with a file of "NAME REGEXP" lines
// (LoadRules; cgraph reads $CGRAPH_REDACT_RULES when set). It must not
// change text that holds no secret, and it never fails: a rule that does
// not compile is refused when it is added.
package redact

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/cgraph/cgraph/internal/needle"
)

// Rule finds one kind of secret.
type Rule struct {
	// Name is the KIND written in place of the secret.
	Name string
	// re matches the secret, or a context whose first group is the secret.
	re *regexp.Regexp
	// keep, when set, decides whether a candidate value is a secret after
	// all (assignment rules check entropy and placeholders).
	keep func(word, value string) bool
	// needles, when set, are literals every match contains at least one
	// of (in the lower-cased text for a (?i) rule): a text without any
	// skips the regexp, which most texts do for most rules. A rule added by
	// Add or LoadRules has none and always runs.
	needles needle.Set
}

// Redactor applies its rules in order. It is immutable after its rules are
// added and safe for concurrent use.
type Redactor struct {
	rules []Rule
}

// shapes are the secrets whose form names them.
// shapes are the secret formats Default knows, each with the literals one
// of which every match contains (in lower case for a (?i) expression):
// TestNeedlesKeepEveryMatch and FuzzRedact check that a text the needles
// skip has no match.
var shapes = []struct {
	name, expr string
	needles    []string
}{
	{"private_key", `-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)`, []string{"-----BEGIN "}},
	{"aws_access_key", `\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b`, []string{"AKIA", "ASIA", "ABIA", "ACCA"}},
	{"github_token", `\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b`, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
	{"github_token", `\b(github_pat_[A-Za-z0-9_]{22,255})\b`, []string{"github_pat_"}},
	{"gitlab_token", `\b(glpat-[A-Za-z0-9_\-]{20,})\b`, []string{"glpat-"}},
	{"slack_token", `\b(xox[abposr]-[A-Za-z0-9-]{10,})\b`, []string{"xox"}},
	{"slack_webhook", `(https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,})`, []string{"https://hooks.slack.com/services/"}},
	{"stripe_key", `\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})\b`, []string{"k_live_", "k_test_"}},
	{"anthropic_key", `\b(sk-ant-[A-Za-z0-9_\-]{20,})`, []string{"sk-ant-"}},
	{"openai_key", `\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})`, []string{"sk-"}},
	{"google_api_key", `\b(AIza[0-9A-Za-z_\-]{35})\b`, []string{"AIza"}},
	{"npm_token", `\b(npm_[A-Za-z0-9]{36})\b`, []string{"npm_"}},
	{"pypi_token", `\b(pypi-AgE[A-Za-z0-9_\-]{50,})`, []string{"pypi-AgE"}},
	{"huggingface_token", `\b(hf_[A-Za-z0-9]{30,})\b`, []string{"hf_"}},
	{"sendgrid_key", `\b(SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,})\b`, []string{"SG."}},
	{"jwt", `\b(eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})`, []string{"eyJ"}},
	{"url_password", `\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@]{1,64}:([^\s@/]{1,128})@`, []string{"://"}},
	{"authorization", `(?i)\bauthorization\s*[:=]\s*(?:bearer|basic|token|digest)\s+([A-Za-z0-9._~+/=\-]{8,})`, []string{"authorization"}},
	{"bearer_token", `(?i)\bbearer\s+([A-Za-z0-9._~+/\-]{20,}=*)`, []string{"bearer"}},
}

// assignNeedles are the literals every assignRE match holds in lower case:
// each of its key words contains one.
var assignNeedles = []string{"pass", "pwd", "secret", "token", "key", "credential"}

// secretWords name a secret in an assignment; passwordWords take any value.
var (
	assignRE     = regexp.MustCompile(`(?i)\b([a-z0-9_.\-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|client[_\-]?secret|credentials?|auth[_\-]?key|signing[_\-]?key|encryption[_\-]?key|key))["']?\s*(?:[:=]|:=|=>|\bis\b)\s*["'\x60]?([^\s"'\x60,;)}\]]{6,})`)
	passwordWord = regexp.MustCompile(`(?i)(password|passwd|passphrase|pwd|secret)`)
)

// placeholders are values that stand for a secret without being one.
var placeholders = regexp.MustCompile(`(?i)^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_]+%|<[^>]*>|\{\{[^}]*\}\}|x{4,}|\*{3,}|\.{3,}|changeme|change_me|example|placeholder|redacted|\[redacted[^\]]*\]?|your[_\-a-z]*|none|null|nil|true|false|undefined|os\.getenv.*|process\.env.*|env\(.*|getenv.*|config\..*|settings\..*|self\..*|args\..*|req\..*)$`)

// Default returns the built-in rules.
func Default() *Redactor {
	r := &Redactor{}
	for _, s := range shapes {
		r.rules = append(r.rules, Rule{Name: s.name, re: regexp.MustCompile(s.expr), needles: needle.Set{Needles: s.needles, Fold: strings.HasPrefix(s.expr, "(?i)")}})
	}
	r.rules = append(r.rules, Rule{Name: "assigned_secret", re: assignRE, keep: assignedSecret, needles: needle.Set{Needles: assignNeedles, Fold: true}})
	return r
}

// Add appends a rule: expr is a regular expression (RE2 syntax) whose
// first group, or whole match when it has none, is the secret.
func (r *Redactor) Add(name, expr string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t[]:") {
		return fmt.Errorf("redaction rule name %q: give a word such as acme_token", name)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("redaction rule %s: %w", name, err)
	}
	if re.MatchString("") {
		return fmt.Errorf("redaction rule %s: %q matches the empty string: it would redact nothing or everything", name, expr)
	}
	r.rules = append(r.rules, Rule{Name: name, re: re})
	return nil
}

// LoadRules adds the rules of a file: one "NAME REGEXP" a line, blank lines
// and lines starting with # skipped.
func (r *Redactor) LoadRules(src io.Reader, file string) error {
	sc := bufio.NewScanner(src)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, expr, ok := strings.Cut(line, " ")
		if !ok {
			return fmt.Errorf("%s:%d: give NAME REGEXP, e.g. acme_token \\bacme_[a-z0-9]{32}\\b", file, n)
		}
		if err := r.Add(name, strings.TrimSpace(expr)); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	}
	return sc.Err()
}

// Finding is one redacted span of the input.
type Finding struct {
	Kind       string
	Start, End int // byte offsets in the input
}

// Redact returns text with every secret replaced by [REDACTED:KIND], and
// what it replaced (nil when nothing). Overlapping findings are merged,
// the first rule's kind kept.
func (r *Redactor) Redact(text string) (string, []Finding) {
	if r == nil || text == "" {
		return text, nil
	}
	var found []Finding
	lower := needle.Lower(text)
	for _, rule := range r.rules {
		if !rule.needles.May(text, lower) {
			continue
		}
		for _, m := range rule.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := m[0], m[1]
			if len(m) >= 4 && m[2] >= 0 {
				start, end = m[2], m[3]
			}
			if rule.keep != nil {
				word, value := text[m[2]:m[3]], text[m[4]:m[5]]
				if !rule.keep(word, value) {
					continue
				}
				start, end = m[4], m[5]
			}
			if start < end {
				found = append(found, Finding{Kind: rule.Name, Start: start, End: end})
			}
		}
	}
	if len(found) == 0 {
		return text, nil
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Start < found[j].Start })
	merged := found[:1]
	for _, f := range found[1:] {
		last := &merged[len(merged)-1]
		if f.Start < last.End {
			last.End = max(last.End, f.End)
			continue
		}
		merged = append(merged, f)
	}
	var b strings.Builder
	prev := 0
	for _, f := range merged {
		b.WriteString(text[prev:f.Start])
		b.WriteString("[REDACTED:" + f.Kind + "]")
		prev = f.End
	}
	b.WriteString(text[prev:])
	return b.String(), merged
}

// assignedSecret decides whether value, given to word, is a secret.
func assignedSecret(word, value string) bool {
	value = strings.TrimRight(value, ".")
	if placeholders.MatchString(value) || strings.HasPrefix(value, "[REDACTED") {
		return false
	}
	if passwordWord.MatchString(word) {
		return len(value) >= 6 && !identifierLike(value)
	}
	if len(value) < 16 || entropy(value) < 3.0 {
		return false
	}
	w := strings.ToLower(word)
	if (w == "key" || strings.HasSuffix(w, "_key") && !strings.Contains(w, "api") && !strings.Contains(w, "secret") && !strings.Contains(w, "private") && !strings.Contains(w, "access")) && isHex(value) {
		return false // a cache key, a hash: hex of a digest's length
	}
	return mixed(value)
}

// identifierLike is a value that reads as code rather than a password: a
// dotted or called expression (config.password, getPassword()).
func identifierLike(v string) bool {
	return strings.Contains(v, "(") || dottedName.MatchString(v)
}

// dottedName is a field path such as cfg.Password or settings.db.pass.
var dottedName = regexp.MustCompile(`^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// mixed reports whether v mixes letters with digits or cases, as a random
// token does and an English word does not.
func mixed(v string) bool {
	var lower, upper, digit bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	n := 0
	for _, b := range []bool{lower, upper, digit} {
		if b {
			n++
		}
	}
	return n >= 2
}

func isHex(v string) bool {
	return strings.Trim(strings.ToLower(v), "0123456789abcdef") == ""
}

// entropy is the Shannon entropy of v's characters, in bits per character.
func entropy(v string) float64 {
	counts := map[rune]int{}
	n := 0
	for _, r := range v {
		counts[r]++
		n++
	}
	h := 0.0
	for _, c := range counts {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	return h
}
