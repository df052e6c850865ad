package redact

import (
	"bufio"
	"os"
	"strings"
	"testing"
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
	f.Fuzz(func(t *testing.T, s string) {
		out, found := r.Redact(s)
		if found == nil && out != s {
			t.Fatalf("changed without a finding: %q -> %q", s, out)
		}
		again, _ := r.Redact(out)
		if again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}
