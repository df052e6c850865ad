package pipeline

import (
	"context"
	"errors"
	"math"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

func TestRocchio(t *testing.T) {
	s := float32(1 / math.Sqrt2)
	for _, c := range []struct {
		name        string
		q           []float32
		docs        [][]float32
		alpha, beta float64
		want        []float32
	}{
		{"no documents keeps the query", []float32{1, 0}, nil, 1, 0.5, []float32{1, 0}},
		{"documents without a vector are skipped", []float32{1, 0}, [][]float32{nil, nil}, 1, 0.5, []float32{1, 0}},
		{"equal pull halfway", []float32{1, 0}, [][]float32{{0, 1}}, 1, 1, []float32{s, s}},
		{"mean of two documents", []float32{1, 0}, [][]float32{{0, 1}, {0, 1}, nil}, 1, 1, []float32{s, s}},
		{"documents cancel: the query alone", []float32{1, 0}, [][]float32{{0, 1}, {0, -1}}, 1, 1, []float32{1, 0}},
		{"beta 0 is the query", []float32{0.6, 0.8}, [][]float32{{1, 0}}, 1, 0, []float32{0.6, 0.8}},
		{"alpha 0 is the documents' centroid", []float32{1, 0}, [][]float32{{0, 1}, {0, 1}}, 0, 1, []float32{0, 1}},
		{"half weight: 1·q + 0.5·d", []float32{1, 0}, [][]float32{{0, 1}}, 1, 0.5, []float32{float32(1 / math.Sqrt(1.25)), float32(0.5 / math.Sqrt(1.25))}},
		{"opposite document of equal weight: query kept", []float32{1, 0}, [][]float32{{-1, 0}}, 1, 1, []float32{1, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Rocchio(c.q, c.docs, c.alpha, c.beta)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if math.Abs(float64(got[i]-c.want[i])) > 1e-6 {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func tf(pairs ...any) fp.TermFreqs {
	var out fp.TermFreqs
	for i := 0; i < len(pairs); i += 2 {
		out.Terms = append(out.Terms, pairs[i].(string))
		out.Counts = append(out.Counts, uint32(pairs[i+1].(int)))
	}
	return out
}

func TestRM3(t *testing.T) {
	one := func(string) float64 { return 1 }
	idf := func(t string) float64 {
		return map[string]float64{"the": 0.01, "rocksdb": 2, "compaction": 3, "stall": 1}[t]
	}
	for _, c := range []struct {
		name  string
		query []string
		docs  []FeedbackDoc
		idf   func(string) float64
		n     int
		want  []WeightedTerm
	}{
		{"no documents", []string{"a"}, nil, one, 3, nil},
		{"n 0", []string{"a"}, []FeedbackDoc{{tf("b", 1), 1}}, one, 0, nil},
		{"query terms are left out, best term weighs top", []string{"a"},
			[]FeedbackDoc{{tf("a", 2, "b", 1, "c", 1), 1}}, one, 3,
			[]WeightedTerm{{"b", 0.3}, {"c", 0.3}}},
		{"P(t|d) = tf/|d|", nil,
			[]FeedbackDoc{{tf("b", 3, "c", 1), 1}}, one, 3,
			[]WeightedTerm{{"b", 0.3}, {"c", 0.1}}},
		{"scores weigh the documents", nil,
			[]FeedbackDoc{{tf("b", 1), 3}, {tf("c", 1), 1}}, one, 3,
			[]WeightedTerm{{"b", 0.3}, {"c", 0.1}}},
		{"no positive score: documents weigh equally", nil,
			[]FeedbackDoc{{tf("b", 1), 0}, {tf("c", 1), 0}}, one, 3,
			[]WeightedTerm{{"b", 0.3}, {"c", 0.3}}},
		{"idf keeps common words down, n cuts", []string{"stall"},
			[]FeedbackDoc{{tf("compaction", 1, "rocksdb", 1, "stall", 1, "the", 4), 1}}, idf, 2,
			[]WeightedTerm{{"compaction", 0.3}, {"rocksdb", 0.2}}},
		{"a term of idf 0 is dropped", nil, []FeedbackDoc{{tf("zzz", 1), 1}}, idf, 3, []WeightedTerm{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := RM3(c.query, c.docs, c.idf, c.n, 0.3)
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i].Term != c.want[i].Term || math.Abs(got[i].Weight-c.want[i].Weight) > 1e-9 {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestFeedbackValidation(t *testing.T) {
	f := newFake().set(Probe{Slot: fp.E1}, 1, 0.9, 2, 0.8)
	for _, n := range []int{-1, MaxFeedback + 1} {
		_, err := Run(context.Background(), f, Request{Query: "q", Profile: profile("e1", false, false, fp.E1, 1.0), Mode: ModeMultiSpace, Feedback: n})
		var ve *record.ValidationError
		if !errors.As(err, &ve) || ve.Field != "feedback" || ve.Fix == "" {
			t.Errorf("feedback %d: error %v, want a validation error on feedback with a fix", n, err)
		}
	}
	// Spaces that cannot expand: the search runs and the trace says why
	// feedback did not.
	res, err := Run(context.Background(), f, Request{Query: "q", Profile: profile("e1", false, false, fp.E1, 1.0), Mode: ModeMultiSpace, Feedback: MaxFeedback})
	if err != nil {
		t.Fatal(err)
	}
	if tr := traceOf(res, StageFeedback); tr.Note != "feedback skipped: these spaces cannot expand a query" {
		t.Errorf("trace %+v: want the feedback stage saying it was skipped", res.Trace)
	}
	// Off: no feedback stage.
	if res, err = Run(context.Background(), f, Request{Query: "q", Profile: profile("e1", false, false, fp.E1, 1.0), Mode: ModeMultiSpace}); err != nil || traceOf(res, StageFeedback).Stage != "" {
		t.Errorf("feedback off: err %v, trace %+v", err, res.Trace)
	}
}
