package runtime

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>

typedef int (*cg_host_alloc_fn)(void **ptr, size_t size, unsigned int flags);
typedef int (*cg_free_host_fn)(void *ptr);

// cg_cudart returns the CUDA runtime ONNX Runtime's CUDA provider loaded
// (RTLD_NOLOAD: the same library, never a second one), or NULL.
static void *cg_cudart(const char *name) { return dlopen(name, RTLD_NOW | RTLD_NOLOAD); }
static void *cg_sym(void *lib, const char *name) { return dlsym(lib, name); }
static int cg_host_alloc(void *fn, void **ptr, size_t size) { return ((cg_host_alloc_fn)fn)(ptr, size, 0); }
static int cg_free_host(void *fn, void *ptr) { return ((cg_free_host_fn)fn)(ptr); }
#include <stdlib.h>
static void free_cstring(char *s) { free(s); }
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// pinned is a small pool of page-locked host buffers (cudaHostAlloc) that a
// cuda Run writes its token states into. From ordinary (pageable) Go memory
// the CUDA driver copies through a staging buffer at a few GB/s; into pinned
// memory the GPU writes at full bus speed: a batch's token states are tens
// of MB (issue 33, run 9: 614 MB per 2,000 documents of 200 tokens per
// model, ~0.2 s of e5-small-v2's 1 s). The buffers come from the CUDA runtime
// the CUDA provider already loaded; where none is loaded (the CPU, a
// fallback) there is no pool and outputs stay in Go memory.
//
// take never blocks: with every buffer in use a run gets Go memory, as
// before. Buffers live until close; their memory is C memory, so the GC
// never moves or frees it.
type pinned struct {
	free     unsafe.Pointer // cudaFreeHost
	alloc    unsafe.Pointer // cudaHostAlloc
	capacity int            // floats per buffer
	mu       sync.Mutex
	idle     [][]float32
	all      []unsafe.Pointer
	max      int // buffers at most
}

// cudartNames are the CUDA runtime sonames ONNX Runtime's CUDA provider
// links (the CUDA 13 build first).
var cudartNames = []string{"libcudart.so.13", "libcudart.so.12"}

// newPinned finds the loaded CUDA runtime; the pool then holds up to max
// buffers of capacity floats, allocated on first use.
func newPinned(capacity, max int) (*pinned, error) {
	for _, name := range cudartNames {
		cname := C.CString(name)
		lib := C.cg_cudart(cname)
		C.free_cstring(cname)
		if lib == nil {
			continue
		}
		p := &pinned{capacity: capacity, max: max}
		for sym, dst := range map[string]*unsafe.Pointer{"cudaHostAlloc": &p.alloc, "cudaFreeHost": &p.free} {
			csym := C.CString(sym)
			*dst = C.cg_sym(lib, csym)
			C.free_cstring(csym)
			if *dst == nil {
				return nil, fmt.Errorf("pinned buffers: %s has no %s", name, sym)
			}
		}
		return p, nil
	}
	return nil, errNoCUDART
}

var errNoCUDART = errors.New("pinned buffers: no CUDA runtime loaded in this process")

// take returns a buffer of at least n floats, or nil when n is larger than
// the buffers, every buffer is in use, or cudaHostAlloc fails.
func (p *pinned) take(n int) []float32 {
	if p == nil || n > p.capacity {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.idle); k > 0 {
		b := p.idle[k-1]
		p.idle = p.idle[:k-1]
		return b
	}
	if len(p.all) >= p.max {
		return nil
	}
	var ptr unsafe.Pointer
	if rc := C.cg_host_alloc(p.alloc, &ptr, C.size_t(p.capacity*4)); rc != 0 || ptr == nil {
		p.max = len(p.all) // out of pinned memory: stop asking
		return nil
	}
	p.all = append(p.all, ptr)
	return unsafe.Slice((*float32)(ptr), p.capacity)
}

// give returns a buffer take handed out (nil is ignored).
func (p *pinned) give(b []float32) {
	if p == nil || b == nil {
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, b[:p.capacity])
	p.mu.Unlock()
}

// close frees every buffer; none may be in use.
func (p *pinned) close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	for _, ptr := range p.all {
		if rc := C.cg_free_host(p.free, ptr); rc != 0 {
			err = errors.Join(err, fmt.Errorf("cudaFreeHost: CUDA error %d", int(rc)))
		}
	}
	p.all, p.idle = nil, nil
	return err
}
