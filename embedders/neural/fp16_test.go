package neural

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// TestFP16Precision: --precision fp16 runs on cuda only, from the
// directory `make setup-cuda-fp16` fills, whose manifest pins the files
// under the default ids (so the slot plan takes the fp32 ids there); a
// missing or broken manifest says how to build it.
func TestFP16Precision(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("..", "..", "models", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		device   runtime.Device
		manifest []byte // nil: no fp16 directory
		wantErr  string
	}{
		{"on the cpu", runtime.DeviceCPU, good, "cuda only"},
		{"not built", runtime.DeviceCUDA, nil, "make setup-cuda-fp16"},
		{"broken manifest", runtime.DeviceCUDA, []byte("{"), "build them again"},
		{"built", runtime.DeviceCUDA, good, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.manifest != nil {
				if err := os.MkdirAll(filepath.Join(dir, FP16Dir), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, FP16Dir, "manifest.json"), tc.manifest, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := Config{ModelsDir: dir, Device: tc.device, Precision: PrecisionFP16}
			got, err := cfg.fp16()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ModelsDir != filepath.Join(dir, FP16Dir) || got.Precision != PrecisionFP32 || got.Manifest == nil {
				t.Fatalf("resolved to %q, %q, manifest %v", got.ModelsDir, got.Precision, got.Manifest != nil)
			}
			if got.fp32Dir != dir {
				t.Errorf("fp32 files looked for in %q, want the models directory %q (E7's fine-tuned queries)", got.fp32Dir, dir)
			}
			if got.BatchSize != FP16BatchSize {
				t.Errorf("batch size %d, want the packed graphs' %d", got.BatchSize, FP16BatchSize)
			}
			mine := cfg
			mine.BatchSize = 32
			if got, err := mine.fp16(); err != nil || got.BatchSize != 32 {
				t.Errorf("an asked-for batch size became %d (%v), want 32 kept", got.BatchSize, err)
			}
			ids, err := Models(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if want := []models.ModelID{modelE1, modelE5, modelMiniLM}; !slices.Equal(ids, want) {
				t.Fatalf("models %v, want the fp32 ids %v", ids, want)
			}
		})
	}
}
