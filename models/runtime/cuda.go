package runtime

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CUDAORTVersion is the onnxruntime-gpu release scripts/setup_cuda.sh installs: the
// PyPI wheel built for CUDA 13 and cuDNN 9. Its library serves onnxruntime_go's API
// like the CPU build of ORTVersion.
const CUDAORTVersion = "1.31.1"

// CUDALibraryPath is where scripts/setup_cuda.sh puts the CUDA build of ONNX Runtime:
// <cache>/onnxruntime-gpu/<CUDAORTVersion>/libonnxruntime.so.<CUDAORTVersion>, with the
// two provider libraries beside it. It does not check that the file exists.
func CUDALibraryPath() string {
	return filepath.Join(CacheDir(), "onnxruntime-gpu", CUDAORTVersion, "libonnxruntime.so."+CUDAORTVersion)
}

// cudaLibraries are the files ONNX Runtime's CUDA provider needs beside the main library.
var cudaLibraries = []string{"libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so"}

// CUDAPiece is one library the CUDA execution provider needs at run time, and where it
// comes from.
type CUDAPiece struct {
	Lib  string // file name the dynamic loader looks for, e.g. "libcudart.so.13"
	What string // what it is
	Fix  string // how to get it
}

// cudaPieces are the CUDA execution provider's run-time needs beside ONNX Runtime's own
// provider libraries (readelf -d libonnxruntime_providers_cuda.so of the 1.31.1 wheel,
// plus cuDNN 9, which it loads for its kernels).
var cudaPieces = []CUDAPiece{
	{"libcuda.so.1", "the NVIDIA driver", "install the NVIDIA driver; without a GPU and its driver --device cuda cannot run (use --device cpu)"},
	{"libcudart.so.13", "the CUDA 13 runtime", "pip install nvidia-cuda-runtime (CUDA 13) and put its lib folder on LD_LIBRARY_PATH (scripts/setup_cuda.sh prints it)"},
	{"libcublas.so.13", "cuBLAS 13", "pip install nvidia-cublas (CUDA 13) and put its lib folder on LD_LIBRARY_PATH"},
	{"libcublasLt.so.13", "cuBLASLt 13", "pip install nvidia-cublas (CUDA 13) and put its lib folder on LD_LIBRARY_PATH"},
	{"libcurand.so.10", "cuRAND (CUDA 13)", "pip install nvidia-curand (CUDA 13) and put its lib folder on LD_LIBRARY_PATH"},
	{"libcudnn.so.9", "cuDNN 9", "pip install nvidia-cudnn-cu13 and put its lib folder on LD_LIBRARY_PATH"},
}

// DiagnoseCUDA names what the CUDA execution provider would miss if ONNX Runtime were
// loaded from libPath: the two provider libraries beside it, then the CUDA libraries
// the dynamic loader must find (looked for in $LD_LIBRARY_PATH, the folder of libPath,
// the system's library folders and /etc/ld.so.cache). An empty result means every file
// is there; it does not prove that a GPU is (the driver library can exist without one).
// Cost: a few stats and one read of /etc/ld.so.cache.
func DiagnoseCUDA(libPath string) []CUDAPiece {
	dirs := []string{filepath.Dir(libPath)}
	dirs = append(dirs, filepath.SplitList(os.Getenv("LD_LIBRARY_PATH"))...)
	dirs = append(dirs, systemLibDirs...)
	cache, _ := os.ReadFile("/etc/ld.so.cache") // unreadable: rely on the folders
	return diagnoseCUDA(libPath, dirs, cache)
}

var systemLibDirs = []string{
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/lib",
	"/usr/local/cuda/lib64", "/usr/local/nvidia/lib64", "/usr/lib/wsl/lib",
}

func diagnoseCUDA(libPath string, dirs []string, ldcache []byte) []CUDAPiece {
	var missing []CUDAPiece
	for _, name := range cudaLibraries {
		p := filepath.Join(filepath.Dir(libPath), name)
		if !fileExists(p) {
			missing = append(missing, CUDAPiece{Lib: p, What: "ONNX Runtime's CUDA provider (the CUDA build of ONNX Runtime " + CUDAORTVersion + ")",
				Fix: "run `make setup-cuda` (installs " + CUDALibraryPath() + " and its providers) or point $CGRAPH_ORT_LIB at a CUDA build"})
		}
	}
	for _, pc := range cudaPieces {
		if !findLib(pc.Lib, dirs, ldcache) {
			missing = append(missing, pc)
		}
	}
	return missing
}

// findLib reports whether name is in one of dirs or listed in the loader cache.
func findLib(name string, dirs []string, ldcache []byte) bool {
	for _, d := range dirs {
		if d != "" && fileExists(filepath.Join(d, name)) {
			return true
		}
	}
	return bytes.Contains(ldcache, []byte("/"+name+"\x00"))
}

// describeMissing is the diagnosis as one sentence for an error message.
func describeMissing(missing []CUDAPiece) string {
	if len(missing) == 0 {
		return "every library it needs is on disk (so the GPU itself or its driver refused: is there one? nvidia-smi says)"
	}
	parts := make([]string, len(missing))
	for i, m := range missing {
		parts[i] = fmt.Sprintf("%s (%s: %s)", m.Lib, m.What, m.Fix)
	}
	return "missing " + strings.Join(parts, "; ")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
