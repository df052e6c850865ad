package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/ops"
)

// TestEmbeddersWithoutStore: with no store at --db and no models, the 13
// slots come from the registry alone; model-backed slots say unavailable and
// how to fix it, model-free slots are ready.
func TestEmbeddersWithoutStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "absent")
	r := mustRun(t, "", "--db", db, "--json", "embedders")
	var rows []ops.EmbedderRow
	oneJSON(t, r.stdout, &rows)
	if len(rows) != 13 {
		t.Fatalf("%d slots, want 13", len(rows))
	}
	if !strings.Contains(r.stderr, "no store at "+db) {
		t.Errorf("stderr does not say there is no store: %q", r.stderr)
	}
	for i, row := range rows {
		if row.Slot != "E"+itoa(i+1) || row.Index != "-" || row.Docs != 0 {
			t.Errorf("row %d: %+v", i, row)
		}
		switch row.Slot {
		case "E1", "E5", "E7", "E8", "E10", "E12", "E13":
			if row.Status != "unavailable" || row.Reason == "" || row.Model != "" || row.Dims != 0 {
				t.Errorf("%s without a model: %+v", row.Slot, row)
			}
		case "E2", "E3", "E4", "E6", "E9":
			if row.Status != "ready" || row.Model == "" || row.Producer == "" || row.Representation == "" {
				t.Errorf("model-free %s: %+v", row.Slot, row)
			}
		}
	}
	// Human form: a header and 13 rows, then the representations, then why
	// each slot that is not ready is not.
	out := mustRun(t, "", "--db", db, "embedders").stdout
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 14 || !strings.HasPrefix(lines[0], "slot") || !strings.HasPrefix(lines[1], "E1 ") || !strings.HasPrefix(lines[13], "E13") {
		t.Fatalf("embedders table:\n%s", out)
	}
	if f := strings.Fields(lines[1]); f[2] != "unavailable" || f[3] != "-" {
		t.Errorf("E1 row: %q", lines[1])
	}
	if f := strings.Fields(lines[6]); f[2] != "ready" || f[3] != rows[5].Model || f[len(f)-1] != "-" || rows[5].Device != "" {
		t.Errorf("E6 row (model-free: no device): %q", lines[6])
	}
	why := out[strings.Index(out, "\nnot ready:\n"):]
	for _, r := range rows {
		line := "\n  " + r.Slot + " "
		if got := strings.Contains(why, line); got != (r.Status != "ready") {
			t.Errorf("%s (%s) listed under not ready: %v\n%s", r.Slot, r.Status, got, why)
		}
	}
	if !strings.Contains(why, "E1   unavailable: "+rows[0].Reason) {
		t.Errorf("E1 reason missing:\n%s", why)
	}
	if !strings.Contains(out, "\nrepresentations:\n") || !strings.Contains(out, "\n  E6   "+rows[5].Representation+"\n") {
		t.Errorf("E6 representation missing:\n%s", out)
	}
}

// TestEmbeddersRealStore: with the installed models and the samples, E1 and
// E7 are ready with their models, and each indexed slot counts the samples.
func TestEmbeddersRealStore(t *testing.T) {
	db := sharedSampleStore(t)
	var rows []ops.EmbedderRow
	oneJSON(t, mustRun(t, "", "--db", db, "--models-dir", realModelsDir(t), "--json", "embedders").stdout, &rows)
	n := bytes.Count(sampleJSONL, []byte("\n"))
	bySlot := map[string]ops.EmbedderRow{}
	for _, r := range rows {
		bySlot[r.Slot] = r
	}
	for slot, model := range map[string]string{"E1": "e5-small-v2", "E7": "all-minilm-l6-v2"} {
		r := bySlot[slot]
		if r.Status != "ready" || !strings.HasPrefix(r.Model, model) || r.Dims != 384 || r.Index == "-" || r.Docs != n || r.RAMBytes <= 0 {
			t.Errorf("%s: %+v (want ready, %s, 384 dims, %d docs)", slot, r, model, n)
		}
		if r.Stored != r.Producer || r.StoredDiffers {
			t.Errorf("%s stored %q, installed %q", slot, r.Stored, r.Producer)
		}
		if !strings.HasPrefix(r.Device, "cpu") {
			t.Errorf("%s device %q, want cpu", slot, r.Device)
		}
	}
	if r := bySlot["E6"]; r.Docs != n || r.Index == "-" {
		t.Errorf("E6: %+v", r)
	}
	for _, r := range rows {
		if r.Status == "unavailable" && r.Docs != 0 {
			t.Errorf("%s is unavailable but indexes %d docs", r.Slot, r.Docs)
		}
	}
}

// TestEmbeddersCUDAUnavailable: on a machine without CUDA, `embedders
// --device cuda` opens each model's session and fails (exit 1) naming the
// missing piece and the fix, instead of listing the slots as ready.
func TestEmbeddersCUDAUnavailable(t *testing.T) {
	if _, err := os.Stat(filepath.Join(filepath.Dir(runtime.LibraryPathFor(runtime.DeviceCUDA)), "libonnxruntime_providers_cuda.so")); err == nil {
		t.Skip("the CUDA provider is installed here; this test covers machines without it")
	}
	db := filepath.Join(t.TempDir(), "absent")
	r := run(t, "", "--db", db, "--models-dir", realModelsDir(t), "--device", "cuda", "embedders")
	if r.code != ExitError || strings.Contains(r.stdout, "ready") {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	for _, part := range []string{"on cuda", "libonnxruntime_providers_cuda.so", "make setup-cuda", "--device cpu"} {
		if !strings.Contains(r.stderr, part) {
			t.Errorf("stderr does not mention %q:\n%s", part, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "models verify") {
		t.Errorf("a CUDA failure is not a model file problem:\n%s", r.stderr)
	}
}
