package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// fakeSpaces is an in-memory Spaces built from literal ranked lists: each
// probe has the full list of (doc, score) it would return over all documents.
// Search restricts it to within, sorts it and cuts it to k, like an index.
type fakeSpaces struct {
	lists       map[Probe][]Hit
	unavailable map[fp.SlotID]bool
	fail        map[Probe]error

	mu    sync.Mutex // guards calls
	calls []call
}

type call struct {
	probe  Probe
	k      int
	within []uint32 // nil when unrestricted
}

var _ Spaces = (*fakeSpaces)(nil)

func newFake() *fakeSpaces {
	return &fakeSpaces{lists: map[Probe][]Hit{}, unavailable: map[fp.SlotID]bool{}, fail: map[Probe]error{}}
}

// set gives probe p the hits docs[i] with scores[i].
func (f *fakeSpaces) set(p Probe, pairs ...float64) *fakeSpaces {
	if len(pairs)%2 != 0 {
		panic("pairs of doc, score")
	}
	var hs []Hit
	for i := 0; i < len(pairs); i += 2 {
		hs = append(hs, Hit{Doc: record.DocNum(pairs[i]), Score: pairs[i+1]})
	}
	f.lists[p] = hs
	return f
}

func (f *fakeSpaces) Search(_ context.Context, p Probe, k int, within *roaring.Bitmap) ([]Hit, error) {
	c := call{probe: p, k: k}
	if within != nil {
		c.within = within.ToArray()
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	if f.unavailable[p.Slot] {
		return nil, fmt.Errorf("%s: no model installed: %w", p.Slot, ErrUnavailable)
	}
	if err := f.fail[p]; err != nil {
		return nil, err
	}
	var out []Hit
	for _, h := range f.lists[p] {
		if within == nil || within.Contains(uint32(h.Doc)) {
			out = append(out, h)
		}
	}
	sortHits(out)
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

func (f *fakeSpaces) callsOf(s fp.SlotID) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.probe.Slot == s {
			out = append(out, c)
		}
	}
	return out
}

// profile builds a valid custom profile from slot/weight pairs.
func profile(name string, temporal, staged bool, pairs ...any) profiles.Profile {
	p := profiles.Profile{Name: name, Temporal: temporal, Staged: staged}
	for i := 0; i < len(pairs); i += 2 {
		p.Weights.Set(pairs[i].(fp.SlotID), pairs[i+1].(float64))
	}
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return p
}

func docs(r Result) []record.DocNum {
	out := make([]record.DocNum, len(r.Hits))
	for i, h := range r.Hits {
		out[i] = h.Doc
	}
	return out
}

func stages(r Result) []Stage {
	var out []Stage
	for _, t := range r.Trace {
		out = append(out, t.Stage)
	}
	return out
}

func report(r Result, st Stage, s fp.SlotID) (SpaceReport, bool) {
	i := slices.IndexFunc(r.Spaces, func(x SpaceReport) bool { return x.Stage == st && x.Slot == s })
	if i < 0 {
		return SpaceReport{}, false
	}
	return r.Spaces[i], true
}

func traceOf(r Result, st Stage) StageTrace {
	for _, t := range r.Trace {
		if t.Stage == st {
			return t
		}
	}
	return StageTrace{}
}
