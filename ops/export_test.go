package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestExport: every memory in its export view, oldest first, then each
// relation whose two ends were exported, once; a project's export leaves
// the other projects' memories, and relations to them, out.
func TestExport(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	add := func(content, project string) record.ID {
		m, err := e.Add(ctx, record.NewMemory{Content: content, Project: project})
		if err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	a, b, c := add("Error: the build fails on ARM.", "alpha"), add("Fix: pin the ARM toolchain.", "alpha"), add("Note: beta has its own CI.", "beta")
	for _, r := range []record.Relation{{From: b, To: a, Type: record.RelFixes, Weight: 1}, {From: c, To: a, Type: record.RelRelatedTo, Weight: 0.5}} {
		if _, err := e.Link(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		project  string
		memories []record.ID
		rels     int
	}{{"", []record.ID{a, b, c}, 2}, {"alpha", []record.ID{a, b}, 1}, {"gamma", nil, 0}} {
		var out bytes.Buffer
		n, err := Export(ctx, e, &out, tc.project)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			lines = nil
		}
		if n.Memories != len(tc.memories) || n.Relations != tc.rels || len(lines) != n.Memories+n.Relations {
			t.Errorf("project %q: %+v, %d lines, want %d memories and %d relations", tc.project, n, len(lines), len(tc.memories), tc.rels)
			continue
		}
		for i, id := range tc.memories {
			var m struct {
				ID      record.ID `json:"id"`
				Content string    `json:"content"`
				DocNum  *int      `json:"doc_num"`
			}
			if err := json.Unmarshal([]byte(lines[i]), &m); err != nil || m.ID != id || m.Content == "" || m.DocNum != nil {
				t.Errorf("project %q line %d: %s (%v), want memory %s in its export view", tc.project, i+1, lines[i], err, id)
			}
		}
		for _, l := range lines[n.Memories:] {
			if !strings.HasPrefix(l, `{"relation":{"from":"`) {
				t.Errorf("project %q: relation line %s", tc.project, l)
			}
		}
	}
}
