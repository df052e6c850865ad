package engine

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
)

// TestMismatchNamesThePrecision: a store built in the other weights of the
// same models (fp32 on cuda, int8 e5/bge on the CPU) is told which flag
// opens it; any other change keeps the re-embed advice.
func TestMismatchNamesThePrecision(t *testing.T) {
	p := func(m string) fingerprint.Producer {
		return fingerprint.Producer{Model: m, SHA256: [32]byte{byte(len(m))}}
	}
	tests := []struct {
		name string
		ms   []Mismatch
		want string
		not  string
	}{
		{"built on cuda, opened on the cpu", []Mismatch{
			{Slot: fingerprint.E1, Stored: p("e5-small-v2"), Current: p("e5-small-v2-q")},
			{Slot: fingerprint.E5, Stored: p("bge-small-en-v1.5"), Current: p("bge-small-en-v1.5-q")},
		}, "open it with `--precision fp32`", "--device cpu"},
		{"built on the cpu, opened on cuda", []Mismatch{
			{Slot: fingerprint.E1, Stored: p("e5-small-v2-q"), Current: p("e5-small-v2")},
		}, "open it with `--device cpu`", "--precision fp32"},
		{"both directions at once", []Mismatch{
			{Slot: fingerprint.E1, Stored: p("e5-small-v2-q"), Current: p("e5-small-v2")},
			{Slot: fingerprint.E5, Stored: p("bge-small-en-v1.5"), Current: p("bge-small-en-v1.5-q")},
		}, "run `cgraph reembed` (or", "--precision"},
		{"built with --precision fp16, opened with fp32", []Mismatch{
			{Slot: fingerprint.E1, Stored: fingerprint.Producer{Model: "e5-small-v2", SHA256: [32]byte{1}}, Current: fingerprint.Producer{Model: "e5-small-v2", SHA256: [32]byte{2}}},
		}, "--precision fp16", "--precision fp32"},
		{"a model-free slot's algorithm changed", []Mismatch{
			{Slot: fingerprint.E6, Stored: fingerprint.Producer{Model: "cgraph/e6-code-tokens/v1", SHA256: [32]byte{1}}, Current: fingerprint.Producer{Model: "cgraph/e6-code-tokens/v1", SHA256: [32]byte{2}}},
		}, "run `cgraph reembed --slot E6`", "--precision"},
		{"a model-free slot beside a model's precision", []Mismatch{
			{Slot: fingerprint.E6, Stored: fingerprint.Producer{Model: "cgraph/e6-code-tokens/v1", SHA256: [32]byte{1}}, Current: fingerprint.Producer{Model: "cgraph/e6-code-tokens/v1", SHA256: [32]byte{2}}},
			{Slot: fingerprint.E1, Stored: fingerprint.Producer{Model: "e5-small-v2", SHA256: [32]byte{1}}, Current: fingerprint.Producer{Model: "e5-small-v2", SHA256: [32]byte{2}}},
		}, "an earlier cgraph's recipe", "install the models"},
		{"another model", []Mismatch{
			{Slot: fingerprint.E1, Stored: p("e5-small-v2"), Current: p("e5-large-v2")},
		}, "run `cgraph reembed` (or", "--precision"},
		{"a precision change beside a missing model", []Mismatch{
			{Slot: fingerprint.E1, Stored: p("e5-small-v2"), Current: p("e5-small-v2-q")},
			{Slot: fingerprint.E7, Stored: p("all-minilm-l6-v2"), Unavailable: "not installed"},
		}, "fix the unavailable models first", "--precision"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := (&ProducerMismatchError{Dir: "/s", Mismatches: tc.ms}).Error()
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("error = %q\nwant it to contain %q and not %q", got, tc.want, tc.not)
			}
		})
	}
}
