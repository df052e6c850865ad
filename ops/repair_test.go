package ops

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// TestRepairContentsOfAHealthyStore: on a consistent store the repairs
// change nothing and every list of the report is [] in JSON, not null;
// the memories are all still there. (A damaged store's repair is cli's
// check tests and engine's repair tests.)
func TestRepairContentsOfAHealthyStore(t *testing.T) {
	ctx := context.Background()
	e := openStore(t)
	for _, c := range []string{"the deploy script needs bash 5", "prefer table tests", "the cache key includes the locale"} {
		if _, err := e.Add(ctx, record.NewMemory{Content: c, Type: record.TypeFact}); err != nil {
			t.Fatal(err)
		}
	}
	r := RepairReportOf(engine.RepairReport{Healthy: true, Manifest: "MANIFEST-000005"})
	if err := RepairContents(ctx, e, r); err != nil {
		t.Fatal(err)
	}
	if r.Changed || r.Fingerprints.Salvaged || r.Records.Changed() || r.Links.Changed() || len(r.Postings) != 0 || r.Derived.Rewritten != 0 {
		t.Errorf("a healthy store was changed: %+v", r)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "null") {
		t.Errorf("report has a null list: %s", raw)
	}
	st, err := e.Stats(ctx)
	if err != nil || st.Memories != 3 {
		t.Errorf("after repair: %d memories, %v; want 3", st.Memories, err)
	}
}
