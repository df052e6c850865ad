package runtime

import (
	"errors"
	"testing"
)

// TestPinnedNeedsALoadedCUDARuntime: without a CUDA runtime in the process
// (this machine, a CPU model) there is no pool, a nil pool hands out no
// buffer and takes nothing back, and a CPU model writes into Go memory.
func TestPinnedNeedsALoadedCUDARuntime(t *testing.T) {
	p, err := newPinned(1024, 4)
	if !errors.Is(err, errNoCUDART) || p != nil {
		t.Fatalf("newPinned without a CUDA runtime: %v, %v; want errNoCUDART", p, err)
	}
	if b := p.take(16); b != nil {
		t.Fatalf("nil pool handed out %d floats", len(b))
	}
	p.give(make([]float32, 16))
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	m := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	if m.PinnedOutputs() {
		t.Fatal("a CPU model has pinned outputs")
	}
}
