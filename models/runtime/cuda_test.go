package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiagnoseCUDA names each missing piece and finds libraries in the given
// folders or the loader cache.
func TestDiagnoseCUDA(t *testing.T) {
	ortDir, cudaDir := t.TempDir(), t.TempDir()
	lib := filepath.Join(ortDir, "libonnxruntime.so.1.31.1")
	touch := func(dir, name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	libs := func(ps []CUDAPiece) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p.Lib))
		}
		return out
	}
	got := libs(diagnoseCUDA(lib, []string{cudaDir}, nil))
	want := "libonnxruntime_providers_shared.so libonnxruntime_providers_cuda.so libcuda.so.1 libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcudnn.so.9"
	if strings.Join(got, " ") != want {
		t.Fatalf("nothing installed: %v, want %s", got, want)
	}
	touch(ortDir, "libonnxruntime_providers_shared.so")
	touch(ortDir, "libonnxruntime_providers_cuda.so")
	for _, n := range []string{"libcudart.so.13", "libcublas.so.13", "libcublasLt.so.13", "libcurand.so.10"} {
		touch(cudaDir, n)
	}
	cache := []byte("glibc-ld.so.cache1.1\x00libcudnn.so.9\x00/usr/lib/x86_64-linux-gnu/libcudnn.so.9\x00")
	missing := diagnoseCUDA(lib, []string{"", cudaDir}, cache)
	if strings.Join(libs(missing), " ") != "libcuda.so.1" {
		t.Fatalf("only the driver missing: %v", libs(missing))
	}
	msg := describeMissing(missing)
	for _, part := range []string{"libcuda.so.1", "NVIDIA driver", "--device cpu"} {
		if !strings.Contains(msg, part) {
			t.Errorf("%q does not mention %q", msg, part)
		}
	}
	if !strings.Contains(describeMissing(nil), "nvidia-smi") {
		t.Errorf("all present: %q", describeMissing(nil))
	}
}

// TestLibraryPathFor: cuda takes the CUDA build when it is installed, else the
// CPU build (whose missing providers the CUDA error names); $CGRAPH_ORT_LIB wins.
func TestLibraryPathFor(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("CGRAPH_CACHE", cache)
	t.Setenv("CGRAPH_ORT_LIB", "")
	cpu := filepath.Join(cache, "onnxruntime", ORTVersion, "libonnxruntime.so.1")
	if got := LibraryPathFor(DeviceCUDA); got != cpu {
		t.Fatalf("cuda without the CUDA build: %q, want %q", got, cpu)
	}
	gpu := CUDALibraryPath()
	if gpu != filepath.Join(cache, "onnxruntime-gpu", CUDAORTVersion, "libonnxruntime.so."+CUDAORTVersion) {
		t.Fatalf("CUDALibraryPath() = %q", gpu)
	}
	if err := os.MkdirAll(filepath.Dir(gpu), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gpu, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := LibraryPathFor(DeviceCUDA); got != gpu {
		t.Fatalf("cuda with the CUDA build: %q, want %q", got, gpu)
	}
	if got := LibraryPathFor(DeviceCPU); got != cpu {
		t.Fatalf("cpu: %q, want %q", got, cpu)
	}
	t.Setenv("CGRAPH_ORT_LIB", "/opt/x/libonnxruntime.so")
	if got := LibraryPathFor(DeviceCUDA); got != "/opt/x/libonnxruntime.so" {
		t.Fatalf("explicit: %q", got)
	}
}

// TestCUDADefaults: cuda runs large, token-capped batches; the CPU keeps 8.
func TestCUDADefaults(t *testing.T) {
	c := Config{Device: DeviceCUDA}.withDefaults()
	if c.BatchSize != CUDABatchSize || c.MaxBatchTokens != CUDABatchTokens {
		t.Errorf("cuda: batch %d tokens %d", c.BatchSize, c.MaxBatchTokens)
	}
	c = Config{}.withDefaults()
	if c.BatchSize != 8 || c.MaxBatchTokens != 0 {
		t.Errorf("cpu: batch %d tokens %d", c.BatchSize, c.MaxBatchTokens)
	}
}
