package neural

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// TestCUDAPrecision: the default weights on cuda are fp32 for every model;
// on the CPU the 12-layer encoders take their int8 builds; an explicit
// precision wins on either device.
func TestCUDAPrecision(t *testing.T) {
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Device: runtime.DeviceCUDA}, "e5-small-v2 bge-small-en-v1.5 all-minilm-l6-v2"},
		{Config{Device: runtime.DeviceCPU}, "e5-small-v2-q bge-small-en-v1.5-q all-minilm-l6-v2"},
		{Config{Device: runtime.DeviceCUDA, Precision: PrecisionInt8}, "e5-small-v2-q bge-small-en-v1.5-q all-minilm-l6-v2-q"},
		{Config{Precision: PrecisionFP32}, "e5-small-v2 bge-small-en-v1.5 all-minilm-l6-v2"},
	} {
		tc.cfg.Manifest = mf
		ids, err := Models(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, id := range ids {
			got = append(got, string(id))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s/%q: %v, want %s", tc.cfg.Device, tc.cfg.Precision, got, tc.want)
		}
	}
}

// cudaInstalled reports whether this machine has the CUDA provider libraries
// (then the tests of a machine without CUDA do not apply).
func cudaInstalled() bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(runtime.LibraryPathFor(runtime.DeviceCUDA)), "libonnxruntime_providers_cuda.so"))
	return err == nil
}

// TestOpenNowWithoutCUDA: on a machine without CUDA, a registry asked to
// open its sessions on cuda fails naming the missing provider and the fix;
// with a CPU fallback allowed it builds and every model slot says it runs on
// the CPU and why; on cpu every model slot says "cpu" once opened.
func TestOpenNowWithoutCUDA(t *testing.T) {
	if cudaInstalled() {
		t.Skip("the CUDA provider is installed here; this test covers machines without it")
	}
	ctx := context.Background()
	cfg := Config{Device: runtime.DeviceCUDA, OpenNow: true, Precision: PrecisionFP32}
	requireModels(t, cfg)
	_, _, err := Registry(ctx, cfg)
	if err == nil {
		t.Fatal("cuda registry opened on a machine without CUDA")
	}
	for _, part := range []string{"device cuda", "libonnxruntime_providers_cuda.so", "make setup-cuda", "--device cpu"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error does not mention %q: %v", part, err)
		}
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Device: runtime.DeviceCUDA, AllowCPUFallback: true, OpenNow: true, Precision: PrecisionFP32}, "cpu (fallback: device cuda"},
		{Config{Device: runtime.DeviceCPU, OpenNow: true, Precision: PrecisionFP32}, "cpu"},
	} {
		r, closeFn, err := Registry(ctx, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range r.Statuses() {
			s := fingerprint.Slots()[i]
			if s != fingerprint.E1 && s != fingerprint.E5 && s != fingerprint.E7 {
				continue
			}
			if !strings.HasPrefix(st.Device, tc.want) || (tc.want == "cpu" && st.Device != "cpu") {
				t.Errorf("%s %s: device %q, want %q", tc.cfg.Device, s, st.Device, tc.want)
			}
		}
		if err := closeFn(); err != nil {
			t.Fatal(err)
		}
	}
	// Without OpenNow nothing is loaded, and the status says so.
	r, closeFn, err := Registry(ctx, Config{Device: runtime.DeviceCUDA, Precision: PrecisionFP32})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if d := r.Get(fingerprint.E1).Status().Device; d != "cuda (not loaded yet)" {
		t.Errorf("E1 before any run: %q", d)
	}
	if d := r.Get(fingerprint.E6).Status().Device; d != "" {
		t.Errorf("model-free E6: device %q", d)
	}
}
