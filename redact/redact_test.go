package redact

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/internal/needle"
)

// TestCorpus: every secret of testdata/corpus.tsv is redacted under its
// kind, and every clean line comes out unchanged.
func TestCorpus(t *testing.T) {
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := Default()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("bad corpus line %q", line)
		}
		kind, secret, text := parts[0], parts[1], strings.ReplaceAll(parts[2], `\n`, "\n")
		n++
		got, found := r.Redact(text)
		if kind == "none" {
			if got != text || found != nil {
				t.Errorf("clean text changed:\n  in:  %s\n  out: %s", text, got)
			}
			continue
		}
		if strings.Contains(got, secret) || !strings.Contains(got, "[REDACTED:"+kind+"]") {
			t.Errorf("%s not redacted as such:\n  in:  %s\n  out: %s", kind, text, got)
		}
	}
	if n < 40 {
		t.Fatalf("corpus has %d lines", n)
	}
}

func TestAddAndLoadRules(t *testing.T) {
	r := Default()
	if err := r.LoadRules(strings.NewReader("# acme\nacme_token \\bacme_[a-z0-9]{12}\\b\n"), "rules.txt"); err != nil {
		t.Fatal(err)
	}
	got, found := r.Redact("deploy with acme_0123456789ab today")
	if got != "deploy with [REDACTED:acme_token] today" || len(found) != 1 {
		t.Fatalf("%q %v", got, found)
	}
	for _, bad := range []string{"noregexp", "x (", "empty a*"} {
		if err := r.LoadRules(strings.NewReader(bad), "rules.txt"); err == nil || !strings.Contains(err.Error(), "rules.txt:1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("password=hunter2secret and ghp_" + strings.Repeat("a1", 18))
	f.Add("-----BEGIN PRIVATE KEY-----\nabc")
	r := Default()
	all := withoutNeedles(r)
	f.Fuzz(func(t *testing.T, s string) {
		out, found := r.Redact(s)
		if want, _ := all.Redact(s); out != want {
			t.Fatalf("the needles skipped a match: %q -> %q, every rule run: %q", s, out, want)
		}
		if found == nil && out != s {
			t.Fatalf("changed without a finding: %q -> %q", s, out)
		}
		again, _ := r.Redact(out)
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

// withoutNeedles is r with every rule run on every text.
func withoutNeedles(r *Redactor) *Redactor {
	out := &Redactor{rules: slices.Clone(r.rules)}
	for i := range out.rules {
		out.rules[i].needles = needle.Set{}
	}
	return out
}

// TestNeedlesKeepEveryMatch: the literal prefilter never skips a rule that
// matches — every shape's example, in other cases where the rule ignores
// case, with the Unicode letters (?i) folds into ASCII, and inside code.
func TestNeedlesKeepEveryMatch(t *testing.T) {
	r := Default()
	all := withoutNeedles(r)
	texts := []string{
		"AKIAABCDEFGHIJKLMNOP", "ghp_" + strings.Repeat("a1", 18), "github_pat_" + strings.Repeat("b", 22),
		"glpat-" + strings.Repeat("c", 20), "xoxb-1234567890-abc", "https://hooks.slack.com/services/T000/B000/" + strings.Repeat("x", 20),
		"sk_live_" + strings.Repeat("d", 16), "rk_test_" + strings.Repeat("e", 16), "sk-ant-" + strings.Repeat("f", 20),
		"sk-proj-" + strings.Repeat("g", 20), "AIza" + strings.Repeat("h", 35), "npm_" + strings.Repeat("i", 36),
		"pypi-AgE" + strings.Repeat("j", 50), "hf_" + strings.Repeat("k", 30), "SG." + strings.Repeat("l", 16) + "." + strings.Repeat("m", 16),
		"eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJlMTIz", "postgres://admin:s3cr3tPassw0rd@db:5432/x",
		"Authorization: Bearer abcdefghijklmnop1234", "AUTHORIZATION = token abcdefghijklmnop", "BEARER abcdefghijklmnopqrstuvwxyz",
		"Password = hunter2secret!", "API_KEY: 'q8v2kz9x7m4n1p0r'", "client_secret => Zk3x9Qw2Lp8Vn4", "aws_access_key is AKIAEXAMPLEKEY1234",
		"KEY=q8v2kz9x7m4n1p0r", "paſsword = hunter2secret!", "api_\u212Aey", "API_KEY = q8v2kz9x7m4n1p0r",
		"func (c *Client) Do(req *Request) error { token := c.token; return nil }", "x := map[string]int{\"key\": 1}",
	}
	for _, tx := range texts {
		got, _ := r.Redact(tx)
		want, _ := all.Redact(tx)
		if got != want {
			t.Errorf("%q: with needles %q, every rule run %q", tx, got, want)
		}
	}
}

// BenchmarkRedact: one 600-byte Go function without secrets (what most
// writes redact), with and without the literal prefilter.
//
//	go test ./redact -run '^$' -bench Redact
func BenchmarkRedact(b *testing.B) {
	text := strings.Repeat(`func (s *Server) handle(w http.ResponseWriter, r *http.Request) { id := r.URL.Query().Get("id"); s.mu.Lock(); defer s.mu.Unlock(); `, 5) + "}"
	for _, c := range []struct {
		name string
		r    *Redactor
	}{{"needles", Default()}, {"every-rule", withoutNeedles(Default())}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				c.r.Redact(text)
			}
		})
	}
}
