package neural

import (
	"math"
	"testing"

	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/models/tokenizer"
)

// TestProjection checks the embedded projection decodes, re-encodes to the
// same bytes, and projects a token like a plain matrix product would.
func TestProjection(t *testing.T) {
	p, err := parseProjection(e12PCA)
	if err != nil {
		t.Fatal(err)
	}
	if p.In != 384 || p.Out != 128 {
		t.Fatalf("projection %d→%d", p.In, p.Out)
	}
	again, err := p.MarshalBinary()
	if err != nil || string(again) != string(e12PCA) {
		t.Fatalf("re-encoding differs (err %v)", err)
	}
	row := make([]float32, p.In)
	for k := range row {
		row[k] = float32(math.Sin(float64(k)))
	}
	got := p.tokens(runtime.TokenMatrix{IDs: []tokenizer.TokenID{1}, Dim: p.In, Data: row})
	want := make([]float64, p.Out)
	var ss float64
	for j := range want {
		for k := range row {
			want[j] += float64(p.Components[j*p.In+k]) * float64(row[k]-p.Mean[k])
		}
		ss += want[j] * want[j]
	}
	for j := range want {
		if w := want[j] / math.Sqrt(ss); math.Abs(float64(got.Data[j])-w) > 1e-4 {
			t.Fatalf("component %d: %v, want %v", j, got.Data[j], w)
		}
	}
}

// BenchmarkProjection projects a 200-token matrix to E12's 128 dims.
//
//	go test -run '^$' -bench Projection -count 6 ./embedders/neural
func BenchmarkProjection(b *testing.B) {
	p, err := parseProjection(e12PCA)
	if err != nil {
		b.Fatal(err)
	}
	const rows = 200
	tm := runtime.TokenMatrix{IDs: make([]tokenizer.TokenID, rows), Dim: p.In, Data: make([]float32, rows*p.In)}
	for k := range tm.Data {
		tm.Data[k] = float32(math.Sin(float64(k) * 0.37))
	}
	for b.Loop() {
		p.tokens(tm)
	}
}

func FuzzParseProjection(f *testing.F) {
	f.Add(e12PCA)
	f.Add([]byte(projectionMagic + "\x02\x00\x00\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseProjection(data)
		if err != nil {
			return
		}
		if len(p.Mean) != p.In || len(p.Components) != p.In*p.Out {
			t.Fatalf("accepted %d×%d with %d means and %d components", p.Out, p.In, len(p.Mean), len(p.Components))
		}
	})
}
