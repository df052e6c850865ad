package bench

import (
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestBuildCommit(t *testing.T) {
	c := buildCommitOf([]debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}})
	if c.Revision != "0123456789abcdef0123" || !c.Modified || c.Time.Year() != 2026 {
		t.Fatalf("%+v", c)
	}
	if got := c.String(); got != "commit 0123456789ab (2026-05-01, with uncommitted changes)" {
		t.Errorf("String() = %q", got)
	}
	if got := buildCommitOf(nil).String(); !strings.Contains(got, "unknown commit") {
		t.Errorf("unstamped: %q", got)
	}
	// go test binaries carry no VCS stamp: the report says so rather than
	// inventing a commit.
	rep := tinyRun(t, []RunSpec{{Mode: "x"}})
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- cgraph test, "+ReadBuildCommit().String()) {
		t.Errorf("markdown lacks the commit:\n%s", md.String())
	}
}

// TestVersionCommit: a binary without the toolchain's stamp still names the
// commit its version string carries (make build, scripts/setup.sh).
func TestVersionCommit(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"cgraph-dev+a1b2c3d4e5f6", "a1b2c3d4e5f6"},
		{"cgraph-dev+unknown", ""},
		{"cgraph-dev", ""},
		{"test", ""},
		{"cgraph-dev+a1b", ""},
	} {
		if got := versionCommit(tc.version).Revision; got != tc.want {
			t.Errorf("%q: %q, want %q", tc.version, got, tc.want)
		}
	}
	if got := versionCommit("cgraph-dev+a1b2c3d4e5f6").String(); got != "commit a1b2c3d4e5f6" {
		t.Errorf("String() = %q", got)
	}
}

func TestIngestDescribe(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 3, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   Ingest
		want string
	}{
		{Ingest{Docs: 2000, Seconds: 612.3, DocsPerS: 3.27, PeakRSSBytes: 100 << 20, Index: "the cgraph store at out/store", BuiltAt: at},
			"Built the cgraph store at out/store from 2000 documents (corpus `sha256:c`) on 2026-05-01 12:03 UTC in 612.30 s (3.3 docs/s). Peak RSS 100.0 MiB."},
		{Ingest{Docs: 2000, Seconds: 0.4, DocsPerS: 3.27, Reused: true, BuiltSeconds: 612, Index: "the cgraph store at s", BuiltAt: at},
			"Reused the cgraph store at s, built from 2000 documents (corpus `sha256:c`) on 2026-05-01 12:03 UTC in 612.0 s (3.3 docs/s, the figure to quote); reopening it took 0.40 s."},
		{Ingest{Docs: 20, Seconds: 0.1, Reused: true},
			"Reused the index, built from 20 documents (corpus `sha256:c`) at an unknown time; its build time is unknown"},
	} {
		if got := tc.in.Describe("sha256:c"); !strings.HasPrefix(got, tc.want) {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
