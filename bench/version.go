package bench

import (
	"runtime/debug"
	"strings"
	"time"
)

// BuildCommit is the source revision a binary was built from, as the Go
// toolchain stamps it (-buildvcs, on by default when building inside a git
// checkout). Revision is empty when the binary carries no stamp: go test,
// go run, -buildvcs=false, and any build from a git worktree (Go 1.26 looks
// for a .git directory, and a worktree has a .git file). Scripts that must
// name a commit then put it in engine.Version with -ldflags -X, from git
// rev-parse (docs/bench/run.sh does).
type BuildCommit struct {
	Revision string    `json:"revision,omitempty"`
	Time     time.Time `json:"time,omitzero"`
	Modified bool      `json:"modified,omitempty"` // built from a tree with uncommitted changes
}

// ReadBuildCommit reads the running binary's VCS stamp.
func ReadBuildCommit() BuildCommit {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildCommit{}
	}
	return buildCommitOf(bi.Settings)
}

// versionCommit is the commit a version string names after its "+"
// ("cgraph-dev+a1b2c3d4e5f6", as make build and scripts/setup.sh stamp it
// with git rev-parse), for a binary the toolchain did not stamp; zero when
// it names none.
func versionCommit(version string) BuildCommit {
	_, rev, ok := strings.Cut(version, "+")
	if !ok || len(rev) < 7 || strings.Trim(rev, "0123456789abcdef") != "" {
		return BuildCommit{}
	}
	return BuildCommit{Revision: rev}
}

// buildCommitOf picks the vcs.* settings of a build.
func buildCommitOf(settings []debug.BuildSetting) BuildCommit {
	var c BuildCommit
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			c.Revision = s.Value
		case "vcs.modified":
			c.Modified = s.Value == "true"
		case "vcs.time":
			c.Time, _ = time.Parse(time.RFC3339, s.Value) // a bad stamp leaves the time unknown
		}
	}
	return c
}

// String is "a1b2c3d4e5f6 (2026-05-01, modified)", or "unknown commit"
// for an unstamped binary.
func (c BuildCommit) String() string {
	if c.Revision == "" {
		return "unknown commit (binary built without VCS stamping)"
	}
	s := c.Revision[:min(12, len(c.Revision))]
	var extra []string
	if !c.Time.IsZero() {
		extra = append(extra, c.Time.UTC().Format("2006-01-02"))
	}
	if c.Modified {
		extra = append(extra, "with uncommitted changes")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return "commit " + s
}
