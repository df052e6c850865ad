package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ORTVersion is the ONNX Runtime release scripts/setup.sh installs.
const ORTVersion = "1.30.0"

// LibraryPath is where cgraph looks for the ONNX Runtime shared library: $CGRAPH_ORT_LIB
// when set, else <cache>/onnxruntime/<ORTVersion>/libonnxruntime.so.1 with <cache> being
// CacheDir() (the place scripts/setup.sh installs it). It does not check that the file
// exists.
func LibraryPath() string {
	if p := os.Getenv("CGRAPH_ORT_LIB"); p != "" {
		return p
	}
	return filepath.Join(CacheDir(), "onnxruntime", ORTVersion, "libonnxruntime.so.1")
}

// CacheDir is $CGRAPH_CACHE, else $XDG_CACHE_HOME/cgraph, else ~/.cache/cgraph.
func CacheDir() string {
	if cache := os.Getenv("CGRAPH_CACHE"); cache != "" {
		return cache
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = "."
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cgraph")
}

// LibraryPathFor is the library a session on device loads when Config.LibraryPath is
// empty: $CGRAPH_ORT_LIB when set; for cuda the CUDA build that `make setup-cuda`
// installs (CUDALibraryPath) when it is there; else LibraryPath(). A cuda session on
// the CPU build then fails naming the missing provider libraries and `make setup-cuda`
// (or falls back, when allowed). It stats one file at most.
func LibraryPathFor(d Device) string {
	if d == DeviceCUDA && os.Getenv("CGRAPH_ORT_LIB") == "" {
		if p := CUDALibraryPath(); fileExists(p) {
			return p
		}
	}
	return LibraryPath()
}

// The ONNX Runtime environment is process-wide: it is created once, from one library,
// and never destroyed (sessions of any model may use it until the process exits).
var env struct {
	mu      sync.Mutex
	libPath string // library the environment was created from; "" before
}

// ErrNoRuntime means the ONNX Runtime shared library is missing or cannot be loaded.
var ErrNoRuntime = errors.New("ONNX Runtime library unavailable")

// Initialize loads the ONNX Runtime library at libPath ("" means LibraryPath()) and
// creates the process-wide environment, as Open does on first use. Code that runs its
// own onnxruntime_go sessions in a process that also uses this package (a test reading
// a graph's raw outputs) calls it first, so that both share one environment; it must
// not initialise onnxruntime_go itself. Errors wrap ErrNoRuntime.
func Initialize(libPath string) error {
	if libPath == "" {
		libPath = LibraryPath()
	}
	return initRuntime(libPath)
}

// initRuntime loads the ONNX Runtime library at path and creates the environment, once
// per process. A second call with another path fails: one process runs one library.
func initRuntime(path string) error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if _, err := os.Stat(path); err != nil {
		if path == CUDALibraryPath() {
			return fmt.Errorf("%w: %s not found (%v); install the CUDA build with `make setup-cuda` (scripts/setup_cuda.sh)", ErrNoRuntime, path, err)
		}
		return fmt.Errorf("%w: %s not found (%v); install it with `make setup` (scripts/setup.sh) or point $CGRAPH_ORT_LIB at libonnxruntime.so %s", ErrNoRuntime, path, err, ORTVersion)
	}
	if env.libPath != "" {
		if env.libPath != path {
			return fmt.Errorf("%w: ONNX Runtime is already loaded from %s in this process; cannot also load %s", ErrNoRuntime, env.libPath, path)
		}
		return nil
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("%w: load %s: %v; reinstall it with `make setup` or point $CGRAPH_ORT_LIB at a working libonnxruntime.so %s", ErrNoRuntime, path, err, ORTVersion)
	}
	env.libPath = path
	return nil
}
