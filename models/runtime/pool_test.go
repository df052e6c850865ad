package runtime

import (
	"compress/gzip"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/cgraph/cgraph/models/tokenizer"
)

func gunzipFile(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

func TestMeanPool(t *testing.T) {
	hidden := []float32{1, 2, 3, 4, 100, 100} // 3 tokens × 2 dims; the last is padding
	got := meanPool(hidden, 3, 2, []int64{1, 1, 0})
	if !slices.Equal(got, []float32{2, 3}) {
		t.Fatalf("meanPool = %v", got)
	}
	if got := meanPool(hidden, 3, 2, []int64{0, 0, 0}); !slices.Equal(got, []float32{0, 0}) {
		t.Fatalf("all masked = %v", got)
	}
	if got := clsPool(hidden, 2); !slices.Equal(got, []float32{1, 2}) {
		t.Fatalf("clsPool = %v", got)
	}
}

func TestL2Normalize(t *testing.T) {
	v := []float32{3, 4}
	l2Normalize(v)
	if !slices.Equal(v, []float32{0.6, 0.8}) {
		t.Fatalf("%v", v)
	}
	z := []float32{0, 0}
	l2Normalize(z)
	if !slices.Equal(z, []float32{0, 0}) {
		t.Fatalf("zero vector became %v", z)
	}
}

func TestSpladePool(t *testing.T) {
	// 3 tokens × 4 terms; token 2 is padding and would win term 3 if not masked.
	logits := []float32{
		-1, 2, 0, 0.5,
		-2, 1, -3, 0.25,
		9, 9, 9, 9,
	}
	terms, weights := spladePool(logits, 3, 4, []int64{1, 1, 0})
	if !slices.Equal(terms, []tokenizer.TokenID{1, 3}) {
		t.Fatalf("terms %v", terms)
	}
	want := []float64{math.Log1p(2), math.Log1p(0.5)}
	for i := range want {
		if math.Abs(float64(weights[i])-want[i]) > 1e-6 {
			t.Fatalf("weights %v want %v", weights, want)
		}
	}
}

func BenchmarkSpladePool(b *testing.B) {
	const T, V = 128, 30522
	logits := make([]float32, T*V)
	for i := range logits {
		logits[i] = rand.Float32()*8 - 7.5
	}
	mask := make([]int64, T)
	for i := range mask {
		mask[i] = 1
	}
	for b.Loop() {
		spladePool(logits, T, V, mask)
	}
}

func BenchmarkMeanPool(b *testing.B) {
	const T, D = 256, 384
	hidden := make([]float32, T*D)
	mask := make([]int64, T)
	for i := range mask {
		mask[i] = 1
	}
	for b.Loop() {
		meanPool(hidden, T, D, mask)
	}
}
