package contradict

import (
	"strings"
	"testing"
)

func TestReadClaims(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // key=value, with a ! before a retired one
	}{
		{"We moved from Travis to GitHub Actions.", []string{"!tool:ci=travis", "tool:ci=github actions"}},
		{"The API image is built FROM python:3.12-slim.", []string{"version:python=3.12"}},
		{".nvmrc pins Node 18.19.0 for CI.", []string{"version:node=18.19.0"}},
		{"Run 2 replicas of the Go 1.22 service.", []string{"qty:replica=2", "version:go=1.22"}},
		{"Uploads are capped at 10 MB; requests time out after 30s.", []string{"qty:size=1e+07", "qty:time=30"}},
		{"ENABLE_NEW_CHECKOUT defaults to false; singleQuote: true", []string{"set:enable_new_checkout=false", "set:singlequote=true"}},
		{"Connect to localhost:5432 or port 6432 through pgbouncer.", []string{"port=5432", "port=6432"}},
		{"The backup runs at 02:00 UTC in us-east-1.", []string{"clock=02:00", "timezone=utc", "region=us-east-1"}},
		{"Releases are cut on Thursdays, never on Friday.", []string{"weekday=thursday", "!weekday=friday"}},
		{"nothing is kept in AWS Secrets Manager; Vault holds it all", []string{"!tool:cloud=aws", "!tool:secret-store=secrets manager", "tool:secret-store=vault"}},
		{"Python formatting is done by ruff format; black isn't used.", []string{"tool:py-format=ruff format", "!tool:py-format=black"}},
		{"golint was deprecated, so we swapped it for golangci-lint.", []string{"!tool:go-lint=golint", "tool:go-lint=golangci-lint"}},
		{"You can't deploy without Vault.", []string{"tool:secret-store=vault"}},
		{"Connect with sslmode=require; LOG_FORMAT is 'json'.", []string{"set:sslmode=require", "set:log_format=json"}},
		{"`no-console` is an error; DATABASE_URL is required.", []string{"set:no-console=error"}},
		{`pyproject.toml: requires-python = ">=3.12"; python-version: 3.11`, []string{"version:python=3.12", "version:python=3.11"}},
		{"The Node version in .nvmrc is 18.19.0.", []string{"version:node=18.19.0"}},
		{"Pods request 512Mi and keep logs for a 30-day window.", []string{"qty:size=5.36870912e+08", "qty:time=2.592e+06"}},
		{"Runs are tracked in Weights & Biases, checkpoints saved in bf16.", []string{"tool:experiment-track=wandb", "tool:float-precision=bf16"}},
		{"The Growth team owns it; the whole team reviews.", []string{"owner=growth"}},
		// code is not read for claims
		{"func f() {\n\tx := 1\n\treturn x\n}\n", nil},
	} {
		var got []string
		for _, cl := range readClaims(c.text).claims {
			s := cl.key + "=" + cl.value
			if cl.retired {
				s = "!" + s
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("readClaims(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestContrast(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"JWT access tokens expire after 15 minutes.", "JWT refresh tokens expire after 30 days.", true},
		{"Use 4 spaces in Python files.", "Use 2 spaces in YAML files.", true},
		{"Indent all TypeScript files with 2 spaces.", "TS files are indented with 4 spaces.", false},
		{"We format Python with black.", "Python formatting is done by ruff.", false},
		{"orders-events has 12 partitions.", "payments-events has 3 partitions.", true},
		{"orders-events has 12 partitions.", "The orders-events topic has 6 partitions.", false},
		{"billing-svc belongs to the Growth team.", "The Messaging team owns billing-svc.", false},
	} {
		if _, got := contrast(readClaims(c.a), readClaims(c.b)); got != c.want {
			t.Errorf("contrast(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// FuzzReadClaims: any text reads without a panic into claims with a known
// kind of key and a value, the same each time.
func FuzzReadClaims(f *testing.F) {
	for _, s := range []string{"We moved from Travis to GitHub Actions.", "FROM python:3.12-slim", "LOG_LEVEL=warn",
		"port 8080 at 02:00 UTC", "x: y", "redis://cache:6379/1", "10MB 80% 3 replicas", "= : — -", "Node v20.x+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, b := readClaims(text), readClaims(text)
		if len(a.claims) != len(b.claims) {
			t.Fatalf("two reads of %q differ: %v / %v", text, a.claims, b.claims)
		}
		for i, c := range a.claims {
			if c != b.claims[i] {
				t.Fatalf("two reads of %q differ: %v / %v", text, a.claims, b.claims)
			}
			if c.value == "" || c.text == "" {
				t.Fatalf("%q: claim %+v without a value", text, c)
			}
			known := false
			for _, p := range []string{"tool:", "version:", "set:", "qty:", "port", "clock", "timezone", "region", "weekday", "owner"} {
				known = known || strings.HasPrefix(c.key, p)
			}
			if !known {
				t.Fatalf("%q: claim %+v has no known kind of key", text, c)
			}
		}
	})
}

func TestTopDir(t *testing.T) {
	for in, want := range map[string]string{"services/": "services", "ml/uv.lock": "ml", "src/store/slices/": "src",
		"ci/cd": "", "and/or": "", "https://x.io/a/": "", "/etc/hosts": "", "feat/<ticket>": "", "./scripts/x.sh": "", "docs/api": ""} {
		if got := topDir(in); got != want {
			t.Errorf("topDir(%q) = %q, want %q", in, got, want)
		}
	}
}
