package contradict

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/internal/needle"
)

func TestJudgeCases(t *testing.T) {
	same := Evidence{E1: 0.93, E6: 0.5, E11: 1}
	for _, c := range []struct {
		old, new string
		ev       Evidence
		want     Kind
		reason   string // a word the reason must name
	}{
		{"The API server listens on port 8080.", "The API server listens on port 9090.", same, Contradiction, "9090"},
		{"Keep refresh tokens in localStorage.", "Refresh tokens must be httpOnly cookies, never localStorage.", same, Contradiction, "localStorage"},
		{"Enable strict mode in tsconfig.json.", "Disable strict mode in tsconfig.json.", same, Contradiction, "Disable"},
		// allow / deny through the y → ies/ied endings the stemmer folds.
		{"The firewall allows inbound SSH.", "The firewall denies inbound SSH.", same, Contradiction, "denies"},
		{"The proxy denied uploads over 10 MB.", "The proxy allowed uploads over 10 MB.", same, Contradiction, "allowed"},
		{"We use Postgres 15.", "We moved to Postgres 16.", same, Update, "moved"},
		// Hard negatives: both negate; two values differ (another scope); an addition.
		{"Never commit .env files.", "Never commit the node_modules folder.", same, None, "negate"},
		{"The deployment runs 3 replicas in production.", "The deployment runs 1 replica in staging.", same, None, "2 places"},
		{"Redis is used for session storage.", "Redis is also used for rate limiting.", same, None, "also"},
		// The same texts with no shared subject are no conflict.
		{"The API server listens on port 8080.", "The API server listens on port 9090.", Evidence{E1: 0.7, E6: 0.6, E11: 1}, None, "different subjects"},
		// Claims read from the words, however differently worded: two tools of one kind,
		// two versions of one product, two values of one setting, two time zones.
		{"We format Python with black, line length 100.", "Python formatting is done by `ruff format`; black isn't used in this repo.", same, Contradiction, "ruff format"},
		{"Frontend unit tests run with Jest.", "Vitest is the test runner for the web app; there is no jest.config anywhere.", same, Contradiction, "Vitest"},
		{"The API image is built FROM python:3.11-slim.", "Python 3.12 is the runtime for the API (Dockerfile: FROM python:3.12-slim).", same, Contradiction, "3.12"},
		{"LOG_LEVEL=debug in production.", "Production runs with LOG_LEVEL=warn, set in the Helm values.", same, Contradiction, "LOG_LEVEL=warn"},
		{"All timestamps in the database are stored in UTC.", "created_at is stored in Europe/Berlin local time, not UTC.", same, Contradiction, "Europe/Berlin"},
		{"Go code is linted with golint.", "golint was deprecated upstream, so we swapped it for golangci-lint.", same, Update, "golangci-lint"},
		// A tool of the same kind still conflicts below the cosine a shared subject needs;
		// a version there does not.
		{"Errors are reported to Sentry.", "Exceptions go to Rollbar; the company pays for no other tracker.", Evidence{E1: 0.82, E6: 0.1, E11: 1}, Contradiction, "Rollbar"},
		{"The API runs on Python 3.12.", "The notebooks use Python 3.10.", Evidence{E1: 0.82, E6: 0.1, E11: 1}, None, ""},
		// Claims of two subjects: one noun qualified twice, each memory's own variable,
		// different scopes, the old tool kept.
		{"JWT access tokens expire after 15 minutes.", "JWT refresh tokens expire after 30 days.", same, None, ""},
		{"DATABASE_URL points at pgbouncer on port 6432.", "Migrations use DIRECT_DATABASE_URL (port 5432).", same, None, ""},
		{"Staging runs 1 replica.", "Production runs 3 replicas of the API.", same, None, ""},
		{"Unit tests run with Jest.", "Unit tests run with Jest; Vitest runs the new package's tests.", same, None, ""},
		// Each memory's own setting; two parts of the repository; a name both memories
		// give lets every claim count below the cosine; a tool ruled out and replaced.
		{"Android minSdk is 24.", "The Android app sets targetSdk to 34.", same, None, ""},
		{"Services under services/ are managed with Poetry.", "The ml/ directory uses uv (ml/uv.lock).", Evidence{E1: 0.82, E6: 0.1, E11: 1}, None, ""},
		{"orders-events has 12 partitions.", "The orders-events topic was created with 6 partitions.", Evidence{E1: 0.83, E6: 0.2, E11: 1}, Contradiction, "partition"},
		{"Service passwords are stored in Vault.", "We keep credentials in Doppler; we don't run Vault.", Evidence{E1: 0.82, E6: 0.1, E11: 1}, Contradiction, "rules"},
		{"Deploys to prod happen automatically on merge.", "Deploys to prod are manual on merge.", same, Contradiction, "manual"},
		// Two subjects told apart by a file's environment, a qualified tool, a thing beside
		// the old one, a PascalCase setting, a command of its own.
		{"In .env.staging, CACHE_URL=redis://cache-stg:6379.", "In .env.production, CACHE_URL=redis://cache-prd:6379.", same, None, "different places"},
		{"The APAC MySQL cluster lives in ap-southeast-1.", "The EMEA MySQL cluster lives in eu-west-2.", same, None, ""},
		{"WORKERS=8 for the importer.", "The exporter has its own setting, WORKERS=2.", same, None, "its own"},
		{"IdleTimeout on the proxy is 90s.", "The proxy's DialTimeout is 5s.", same, None, ""},
		{"`make serve` starts the API on port 8000.", "`make docs` serves the docs on port 8001.", same, None, ""},
		// Negations: twice in one clause is a requirement; in both memories, a restatement.
		{"main is protected: an approving review is required to merge.", "You can't merge into main without an approval.", same, None, ""},
		{"Flags are read through isEnabled(), never from process.env.", "Don't read FEATURE_* env vars; go through isEnabled().", same, None, ""},
	} {
		j := Judge(c.old, c.new, c.ev, DefaultRules)
		if j.Kind != c.want || !strings.Contains(j.Reason, c.reason) {
			t.Errorf("Judge(%q, %q) = %s (%s), want %s naming %q", c.old, c.new, j.Kind, j.Reason, c.want, c.reason)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"denies": "deny", "denied": "deny", "deny": "deny", "denying": "deny",
		"copies": "copy", "allows": "allow", "hashed": "hash", "committed": "commit", "runs": "run", "class": "class"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKindNames(t *testing.T) {
	for k := None; k <= Update; k++ {
		if strings.HasPrefix(k.String(), "kind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	if Kind(9).String() != "kind(9)" {
		t.Errorf("unknown kind prints %q", Kind(9).String())
	}
}

// TestCheapRegexp checks the word prefilter (needle.Set) of changeMarkers and additive
// against their regexps on every alternative, in every case and position
// that a word boundary allows or forbids.
func TestCheapRegexp(t *testing.T) {
	texts := []string{"", "plain code: x := y + 1", "Additionally, the cache", "ADDITIONALLY", "additionalLy", "know-how", "snowfall",
		"nowhere", "from here to there", "fromage to", "too.", "tool", "me too", "took over", "tookover", "no  longer",
		"It is now", "_now_", "now_", "ſo we moved", "KNOWN", "replaced,", "pre-moved", "it scaled!", "as well", "aswell"}
	for _, w := range append(slices.Clone(changeMarkerWords), additiveWords...) {
		for _, form := range []string{w, strings.ToUpper(w), "x " + w + " y", "x" + w, w + "x", "_" + w, w + ".", "(" + w + ")", w + " \t", "\u212A" + w} {
			texts = append(texts, form)
		}
	}
	for _, c := range []needle.Regexp{changeMarkers, additive} {
		for _, s := range texts {
			if got, want := c.FindString(s), c.Regexp().FindString(s); got != want {
				t.Errorf("%s on %q: %q, the regexp finds %q", c.Regexp(), s, got, want)
			}
		}
	}
}

// FuzzCheapRegexp: the prefilter never changes what the regexp finds.
func FuzzCheapRegexp(f *testing.F) {
	for _, s := range []string{"we moved to Postgres", "Additionally", "from a to b", "me too!", "no longer", "x_now"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []needle.Regexp{changeMarkers, additive} {
			if got, want := c.FindString(s), c.Regexp().FindString(s); got != want {
				t.Errorf("%s on %q: %q, the regexp finds %q", c.Regexp(), s, got, want)
			}
		}
	})
}

// TestJudgeLongPairIsBounded: two ~100 KB memories that differ in one
// value are judged None as too long, without the alignment's table
// (before the bound: 2 s and 558 MB here; a 1 MB pair, which a memory may
// be, would need tens of gigabytes).
func TestJudgeLongPairIsBounded(t *testing.T) {
	old := "alpha " + strings.Repeat("the server listens on port 8080 and logs requests ", 2000)
	new := "beta " + strings.Repeat("the server listens on port 9090 and logs requests ", 2000)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	j := Judge(old, new, Evidence{E1: 0.95, E6: 0.8, E11: 1}, DefaultRules)
	runtime.ReadMemStats(&m1)
	if j.Kind != None || !strings.Contains(j.Reason, "too long") {
		t.Errorf("Judge of two long memories = %s (%s), want none: too long", j.Kind, j.Reason)
	}
	if mb := (m1.TotalAlloc - m0.TotalAlloc) >> 20; mb > 64 {
		t.Errorf("judging two long memories allocated %d MB, want the alignment skipped (< 64 MB)", mb)
	}
	short := Judge("The API server listens on port 8080.", "The API server listens on port 9090.", Evidence{E1: 0.95, E6: 0.8, E11: 1}, DefaultRules)
	if short.Kind != Contradiction {
		t.Errorf("a short pair is no longer judged: %s (%s)", short.Kind, short.Reason)
	}
}

// TestJudgeWords: judging against words made once (shared by many
// judgements, as a write's cache shares a stored memory's) gives what
// Judge gives on every labelled pair, the words untouched by the judging;
// the old text is tokenized only when the judgement needs it, and at most
// once.
func TestJudgeWords(t *testing.T) {
	pairs, ev := loadPairs(t)
	for _, p := range pairs {
		w := Tokenize(p.Old)
		before := slices.Clone(w.tokens)
		calls := 0
		old := func() Words { calls++; return w }
		got := NewText(p.New).JudgeWords(old, ev[p.ID], DefaultRules)
		if want := Judge(p.Old, p.New, ev[p.ID], DefaultRules); got != want {
			t.Errorf("pair %s: JudgeWords %v, Judge %v", p.ID, got, want)
		}
		if calls > 1 || !slices.Equal(before, w.tokens) {
			t.Errorf("pair %s: old called %d times, words changed %v", p.ID, calls, !slices.Equal(before, w.tokens))
		}
		if w.Bytes() < len(p.Old)/2 {
			t.Errorf("pair %s: %d bytes estimated for %d bytes of text", p.ID, w.Bytes(), len(p.Old))
		}
	}
	calls := 0
	j := NewText("The API server listens on port 9090.").JudgeWords(func() Words { calls++; return Tokenize("x") },
		Evidence{E1: 0.5, E6: 0.1, E11: 1}, DefaultRules)
	if j.Kind != None || calls != 0 {
		t.Errorf("different subjects, no change marker: %v, old tokenized %d times; want None without tokenizing", j, calls)
	}
}
