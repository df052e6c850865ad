package runtime

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/models/tokenizer"
)

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not mention %q", err, p)
		}
	}
}

func TestOpenBadModelFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("testdata/tiny/tiny_encoder.onnx")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		path  string
		parts []string
	}{
		{"missing", filepath.Join(dir, "absent.onnx"), []string{"absent.onnx", "no such file", "cgraph models pull"}},
		{"empty", write("empty.onnx", nil), []string{"empty.onnx", "is empty"}},
		{"truncated", write("trunc.onnx", good[:len(good)/2]), []string{"trunc.onnx", "not a loadable ONNX model", "cgraph models verify"}},
		{"garbage", write("junk.onnx", []byte(strings.Repeat("not a protobuf ", 100))), []string{"junk.onnx", "not a loadable ONNX model"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig("")
			cfg.ONNXPath = tc.path
			_, err := Open(cfg)
			wantErr(t, err, tc.parts...)
		})
	}
}

func TestOpenMismatches(t *testing.T) {
	e5tok := filepath.Join(t.TempDir(), "e5-tokenizer.json")
	if err := os.WriteFile(e5tok, gunzipFile(t, "../tokenizer/testdata/e5-small-v2.tokenizer.json.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(*Config)
		parts []string
	}{
		{"dims", func(c *Config) { c.Dims = 384 }, []string{"has 8 dims, the config says 384"}},
		{"rank-2 output", func(c *Config) { c.ONNXPath = "testdata/tiny/tiny_pooled.onnx" }, []string{"sentence_embedding", "shape", "[batch, tokens, hidden]"}},
		{"no such output", func(c *Config) { c.Output = "pooler_output" }, []string{`no output "pooler_output"`, "last_hidden_state"}},
		{"mlm vocab", func(c *Config) {
			c.ONNXPath, c.Task, c.Dims, c.TokenizerPath = "testdata/tiny/tiny_mlm.onnx", TaskMaskedLM, 0, e5tok
		}, []string{"logits per token", "30522 ids", "do not belong together"}},
		{"max length", func(c *Config) { c.MaxLength = 2 }, []string{"max length 2"}},
		{"missing tokenizer", func(c *Config) { c.TokenizerPath = "testdata/tiny/none.json" }, []string{"tokenizer file", "none.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig("tiny_encoder.onnx")
			tc.edit(&cfg)
			_, err := Open(cfg)
			wantErr(t, err, tc.parts...)
		})
	}
}

func TestBadTexts(t *testing.T) {
	m := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	tests := []struct {
		name  string
		texts []string
		is    error
		parts []string
	}{
		{"empty", []string{"hello", ""}, tokenizer.ErrEmptyText, []string{"text 1"}},
		{"whitespace", []string{" \n\t"}, tokenizer.ErrEmptyText, []string{"text 0"}},
		{"invalid utf8", []string{"ok", "fine", "bad \xc3\x28"}, tokenizer.ErrInvalidUTF8, []string{"text 2", "offset 4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Embed(context.Background(), ViewPassage, tc.texts)
			wantErr(t, err, tc.parts...)
			if !errors.Is(err, tc.is) {
				t.Fatalf("error %v is not %v", err, tc.is)
			}
		})
	}
	// A prefix must not hide an empty text.
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.QueryPrefix = "search "
	mq := openTiny(t, cfg)
	_, err := mq.Embed(context.Background(), ViewQuery, []string{""})
	if !errors.Is(err, tokenizer.ErrEmptyText) {
		t.Fatalf("empty query with prefix: %v", err)
	}
}

func TestWrongTaskAndClosed(t *testing.T) {
	m, err := Open(tinyConfig("tiny_encoder.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Sparse(context.Background(), ViewPassage, []string{"hello"})
	wantErr(t, err, "Sparse needs a masked-lm model")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = m.Embed(ctx, ViewPassage, []string{"hello"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, err = m.Embed(context.Background(), ViewPassage, []string{"hello"})
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestCUDAUnavailable runs the cuda path on this CPU-only machine: it must fail naming
// the missing provider library, or fall back to the CPU only when allowed, and say so.
func TestCUDAUnavailable(t *testing.T) {
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.Device = DeviceCUDA
	for _, lib := range cudaLibraries {
		if _, err := os.Stat(filepath.Join(filepath.Dir(LibraryPath()), lib)); err == nil {
			t.Skipf("%s is installed; this test covers machines without CUDA", lib)
		}
	}
	if p := LibraryPathFor(DeviceCUDA); p != LibraryPath() && fileExists(p) {
		// make setup-cuda installed the CUDA build: Open then tries to load it
		// beside the CPU build the other tests loaded, and says that instead.
		t.Skipf("the CUDA build of ONNX Runtime is installed (%s); this test covers machines without it", p)
	}
	_, err := Open(cfg)
	wantErr(t, err, "device cuda", "libonnxruntime_providers_cuda.so", "make setup-cuda", "--device cpu")
	t.Logf("cuda error: %v", err)

	cfg.AllowCPUFallback = true
	m := openTiny(t, cfg)
	if !strings.HasPrefix(m.Device(), "cpu (fallback: device cuda") {
		t.Fatalf("Device() = %q", m.Device())
	}
	if _, err := m.Embed(context.Background(), ViewPassage, []string{"hello"}); err != nil {
		t.Fatal(err)
	}
}

func TestMissingLibrary(t *testing.T) {
	cfg := tinyConfig("tiny_encoder.onnx")
	cfg.LibraryPath = filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	_, err := Open(cfg)
	wantErr(t, err, cfg.LibraryPath, "make setup", "CGRAPH_ORT_LIB")
	if !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("%v is not ErrNoRuntime", err)
	}
}

// TestInitializeShared: Initialize is idempotent for the library Open uses and refuses a
// second library in the same process.
func TestInitializeShared(t *testing.T) {
	openTiny(t, tinyConfig("tiny_encoder.onnx"))
	if err := Initialize(""); err != nil {
		t.Fatalf("Initialize after Open: %v", err)
	}
	other := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Initialize(other)
	wantErr(t, err, "already loaded", other)
	if !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("%v is not ErrNoRuntime", err)
	}
}

// TestUnloadableLibrary needs a fresh process: the environment is loaded once per process.
func TestUnloadableLibrary(t *testing.T) {
	if os.Getenv("CGRAPH_TEST_CHILD") == "unloadable" {
		_, err := Open(tinyConfig("tiny_encoder.onnx"))
		if err == nil {
			os.Exit(3)
		}
		os.Stderr.WriteString(err.Error())
		os.Exit(0)
	}
	junk := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if err := os.WriteFile(junk, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnloadableLibrary$")
	cmd.Env = append(os.Environ(), "CGRAPH_TEST_CHILD=unloadable", "CGRAPH_ORT_LIB="+junk)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, p := range []string{junk, "make setup", "ONNX Runtime library unavailable"} {
		if !strings.Contains(string(out), p) {
			t.Fatalf("child error %q does not mention %q", out, p)
		}
	}
}

func TestLibraryPath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name            string
		lib, cache, xdg string
		want            string
	}{
		{"explicit", "/opt/ort/libonnxruntime.so", "/c", "/x", "/opt/ort/libonnxruntime.so"},
		{"cache", "", "/c", "/x", "/c/onnxruntime/" + ORTVersion + "/libonnxruntime.so.1"},
		{"xdg", "", "", "/x", "/x/cgraph/onnxruntime/" + ORTVersion + "/libonnxruntime.so.1"},
		{"home", "", "", "", home + "/.cache/cgraph/onnxruntime/" + ORTVersion + "/libonnxruntime.so.1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CGRAPH_ORT_LIB", tc.lib)
			t.Setenv("CGRAPH_CACHE", tc.cache)
			t.Setenv("XDG_CACHE_HOME", tc.xdg)
			if got := LibraryPath(); got != tc.want {
				t.Fatalf("LibraryPath() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseEnums(t *testing.T) {
	for _, p := range []Pooling{PoolMean, PoolCLS} {
		got, err := ParsePooling(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePooling(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePooling("max"); err == nil || !strings.Contains(err.Error(), `"max"`) {
		t.Errorf("ParsePooling(max): %v", err)
	}
	for in, want := range map[string]Device{"": DeviceCPU, "cpu": DeviceCPU, "cuda": DeviceCUDA} {
		if got, err := ParseDevice(in); err != nil || got != want {
			t.Errorf("ParseDevice(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseDevice("tpu"); err == nil {
		t.Error("ParseDevice(tpu) accepted")
	}
}
