package engine

// This file is the package's public contract, agreed before the
// implementation so that the CLI, the MCP server and the bench runner can be
// written against it in parallel. Bodies live in the other files.

import (
	"fmt"
	"strings"
	"time"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/pipeline"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/redact"
)

// Options configure Open.
type Options struct {
	// ReadOnly opens the store beside a writer: it catches up with the
	// writer's acknowledged writes at the start of every call (FORMAT.md,
	// "One writer, many readers"); writes return record.ErrReadOnly.
	ReadOnly bool
	// Create makes the directory and a new store if none exists.
	Create bool
	// MaxContentBytes bounds a memory's content; 0 means
	// record.DefaultMaxContentBytes.
	MaxContentBytes int
	// ViewCacheSize bounds the LRU cache of encoded query views (a query
	// asked again skips the models); 0 means DefaultViewCacheSize, a
	// negative value turns the cache off.
	ViewCacheSize int
	// TokenCacheBytes bounds the decoded E12 token matrices a writer keeps
	// in RAM for S4; 0 means DefaultTokenCacheBytes, a negative value turns
	// the cache off. A read-only engine keeps none.
	TokenCacheBytes int
	// NearDuplicate are the thresholds at which Add reports a stored memory
	// as a near-duplicate of a new one (record.Memory.Similar); the zero
	// value means DefaultNearDuplicate, an E1 below 0 turns it off.
	NearDuplicate NearDuplicate
	// DeferSlots are slots AddBatch leaves to a background filler: a memory
	// is stored and searchable in its other spaces as soon as those are
	// computed, and the filler (started by Open on a writable store)
	// computes these later, in batches, persisted in the pending family so
	// that a restart resumes. DeferredSlots lists the usual choice (every
	// neural slot that does not share E1's model). None: every slot is
	// computed before Add returns.
	DeferSlots []fingerprint.SlotID
	// ManualFill keeps Open from starting the background filler: the
	// caller runs FillPending itself (cgraph add --jsonl --defer does, to
	// report when memories became searchable and when they were complete).
	ManualFill bool
	// Sync fsyncs the write-ahead log before a write returns, so that an
	// acknowledged write survives a power loss, at the cost of an fsync per
	// call. Without it a write survives a crash of the process but not of
	// the machine.
	Sync bool
	// Embedders computes fingerprints and query views. Required. Build it
	// with neural.Registry (models from disk) or modelfree.Registry (tests).
	Embedders *embedders.Registry
	// Reembed opens a store whose recorded slot producers differ from
	// Embedders' (normally refused with *ProducerMismatchError) so that
	// Reembed can bring the mismatched slots up to date. Searches of a slot
	// whose producer differs fail until it is re-embedded.
	Reembed bool
	// Clock stamps the uses searches count (decay, Maintain); nil means
	// time.Now. Tests simulate days with it.
	Clock func() time.Time
	// Redactor removes secrets (API keys, tokens, passwords, private keys,
	// connection strings) from every memory's content, source and metadata
	// values before it is embedded or stored, on every write; nil means
	// redact.Default(). KeepSecrets turns it off (benchmark corpora, whose
	// texts must stay as the data set has them).
	Redactor    *redact.Redactor
	KeepSecrets bool
	// NoUses turns off counting searches as uses (decay, maintain): bench
	// stores measure retrieval, and their queries are not an agent using
	// its memories (nor should a once-a-minute write land in their timings).
	NoUses bool
	// OnConflict is the conflict policy of writes that name none
	// (record.NewMemory.OnConflict ""): `cgraph serve --on-conflict` sets
	// it for every write through the server. Zero is report.
	OnConflict record.ConflictPolicy
	// Fusion is the fusion of searches that name none (SearchRequest.Fusion
	// zero): the CLI sets it from $CGRAPH_FUSION for every face it serves
	// (search, context, MCP, HTTP, hooks). Zero is pipeline.DefaultFusion,
	// WRRF (DESIGN.md ARCH-21); minmax is the measured opt-in.
	Fusion Fusion
}

// ProducerMismatchError is returned by Open when a slot of the store was
// computed by another model (or algorithm version) than the one installed now.
// The store is left untouched.
type ProducerMismatchError struct {
	Dir        string
	Mismatches []Mismatch
}

// Mismatch is one slot whose stored producer differs from the current one.
type Mismatch struct {
	Slot    fingerprint.SlotID
	Stored  fingerprint.Producer // zero when the store has no value of the slot
	Current fingerprint.Producer // zero when the slot is now unavailable
	// Unavailable is why the slot cannot be computed now (a model that is
	// missing or corrupt, with the command that fixes it) when Current is
	// zero.
	Unavailable string
}

// broken reports whether the slot's values exist but its embedder cannot
// run now: re-embedding would drop them, so the fix is the model.
func (m Mismatch) broken() bool {
	return m.Current == (fingerprint.Producer{}) && m.Stored != (fingerprint.Producer{})
}

func (e *ProducerMismatchError) Error() string {
	s := fmt.Sprintf("store %s was built with other embedders than the ones installed now:", e.Dir)
	var changed, broken bool
	for _, m := range e.Mismatches {
		if m.broken() {
			broken = true
			s += fmt.Sprintf(" %s stored by %s, but its embedder is unavailable now (%s);", m.Slot, producerName(m.Stored), m.Unavailable)
			continue
		}
		changed = true
		s += fmt.Sprintf(" %s stored by %s, now %s;", m.Slot, producerName(m.Stored), producerName(m.Current))
	}
	switch {
	case broken && changed:
		return s + " fix the unavailable models first (above), then run `cgraph reembed` for the slots whose model changed"
	case broken:
		return s + " fix the models named above; do not re-embed, which would drop the slots' values"
	}
	switch e.remedy() {
	case "algorithm":
		var slots, flags []string
		for _, m := range e.Mismatches {
			slots = append(slots, m.Slot.String())
			flags = append(flags, "--slot "+m.Slot.String())
		}
		return s + fmt.Sprintf(" the way this cgraph computes %s changed (no model is involved): run `cgraph reembed %s` to recompute them; it runs no model (seconds per 10,000 memories)",
			strings.Join(slots, ", "), strings.Join(flags, " "))
	case "fp32":
		return s + " the store holds the fp32 weights of the same models (built on cuda, or with --precision fp32): open it with `--precision fp32`, or run `cgraph reembed` to recompute those slots"
	case "int8":
		return s + " the store holds the CPU's default int8 weights of the same models: open it with `--device cpu` (and the default --precision), or run `cgraph reembed` to recompute those slots in these weights"
	case "same":
		return s + " the store holds the same models' values computed another way — other files (another --precision: the fused fp16 files of `make setup-cuda-fp16` open with `--device cuda --precision fp16`) or an earlier cgraph's recipe (what a slot reads of a memory, e.g. the code view of E1, E5, E7, E10 and E12): open it with the precision it was built with, or run `cgraph reembed` to recompute those slots"
	}
	if e.remedy() == "recipe" {
		return s + " the same models, and cgraph's own slots, computed another way — an earlier cgraph's recipe (what a slot reads of a memory, e.g. the code view of E1, E5, E7, E10 and E12, or E6's code tokens), or another --precision for the model slots: run `cgraph reembed` to recompute those slots, or open it with the precision it was built with"
	}
	return s + " run `cgraph reembed` (or `cgraph reembed --slot E1`) to recompute those slots, or install the models the store was built with"
}

// modelFreePrefix starts the producer ids of the slots cgraph computes
// without a model (embedders.ModelFree: E2, E3, E4, E6, E9, E11).
const modelFreePrefix = "cgraph/"

// remedy names what fixes the refusal: "algorithm" when every mismatch is a model-free slot
// whose algorithm changed, "fp32" or "int8" when every mismatch is the same model
// in the other weights (the manifest's "<id>-q" is the int8 build of <id>):
// a store built on cuda (fp32 by default) opened on the CPU (int8 e5 and
// bge by default) needs a flag, not a re-embed. It returns "same" when
// every mismatch is the same model id in another file (the fp16 files of
// --precision fp16 keep the fp32 ids), and "recipe" when the mismatches
// mix those with model-free slots whose algorithm changed (an upgrade
// that changed how cgraph reads memories, as code view v2 did).
func (e *ProducerMismatchError) remedy() string {
	want := ""
	for _, m := range e.Mismatches {
		var p string
		switch {
		case m.broken():
			return ""
		case m.Stored.Model+"-q" == m.Current.Model:
			p = "fp32"
		case m.Stored.Model == m.Current.Model+"-q":
			p = "int8"
		case m.Stored.Model == m.Current.Model && strings.HasPrefix(m.Stored.Model, modelFreePrefix):
			p = "algorithm"
		case m.Stored.Model == m.Current.Model:
			p = "same"
		default:
			return ""
		}
		if want != "" && want != p {
			if mixed := want + "+" + p; mixed == "algorithm+same" || mixed == "same+algorithm" || want == "recipe" && (p == "algorithm" || p == "same") {
				want = "recipe" // cgraph's own computation changed around the same models
				continue
			}
			return ""
		}
		want = p
	}
	return want
}

func producerName(p fingerprint.Producer) string {
	if p == (fingerprint.Producer{}) {
		return "nothing"
	}
	return p.String()
}

// SlotInfo describes one slot of an open store, for `cgraph embedders`, MCP
// list_embedder_indexes and bench reports.
type SlotInfo struct {
	Slot   fingerprint.SlotID
	Name   string // fingerprint Info name, e.g. "semantic"
	Status embedders.SlotStatus
	// Index names the in-memory index kind ("dense ANN (sign sketch + exact
	// rerank)", "inverted (BM25, MaxScore)", "post-retrieval badge", …) or
	// "none".
	Index string
	// Docs is how many memories hold a value of the slot in the index.
	Docs int
	// RAMBytes is the slot's in-memory index size.
	RAMBytes int64
	// Stored is the producer recorded in the store for the slot (zero if none).
	Stored fingerprint.Producer
}

// SearchRequest is one search. Zero values take the pipeline's defaults;
// Profile's zero value means profiles "semantic_search". Its JSON form is
// what a client sends cgraph serve's POST /v1/search/explain.
type SearchRequest struct {
	Query     string             `json:"query"`
	Profile   profiles.Profile   `json:"profile"`
	Mode      pipeline.Mode      `json:"mode"`
	Embedder  fingerprint.SlotID `json:"embedder,omitempty"` // embedder_first: the primary slot
	Direction pipeline.Direction `json:"direction"`          // E5/E8 views
	TopK      int                `json:"top_k"`
	// RecallK, FilterK and FusionK are the stage sizes (S1 sparse, S2,
	// S3); DenseRecallK is S1's dense recall depth.
	RecallK      int `json:"recall_k,omitempty"`
	FilterK      int `json:"filter_k,omitempty"`
	FusionK      int `json:"fusion_k,omitempty"`
	DenseRecallK int `json:"dense_recall_k,omitempty"`
	// RerankWeight is E12's weight in the pipeline's S4 MaxSim rerank when
	// the profile weighs E12 0, in (0, 1]; 0 means the pipeline's default
	// (DefaultRerankWeight).
	RerankWeight float64 `json:"rerank_weight,omitempty"`
	// Now anchors E2 recency and E3 periodicity; zero means time.Now().
	Now time.Time `json:"now,omitzero"`
	// Session and Seq anchor E4 (sequence_navigation): "near position Seq of
	// Session". Empty Session leaves E4 without an anchor (reported).
	Session string `json:"session,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
	// NoCorrect turns off typo correction. By default a query word that
	// neither the store's text nor the English word list contains, one
	// edit from a word of the store that is clearly the likeliest, is
	// replaced before encoding (SearchResult.Corrections says which).
	NoCorrect bool `json:"no_correct,omitempty"`
	// CorrectKeywordsOnly gives the corrected query to the exact-string
	// spaces only (E6 keywords, E9 n-grams) and the typed one to the dense
	// encoders: measured worse on typo queries and no better on clean
	// ones (docs/BENCHMARKS.md), kept to measure it.
	CorrectKeywordsOnly bool `json:"correct_keywords_only,omitempty"`
	// NoThresholds keeps results below every slot's low threshold.
	NoThresholds bool `json:"no_thresholds,omitempty"`
	// Partial records a failing index as failed and goes on; see pipeline.
	Partial bool `json:"partial,omitempty"`
	// Feedback, when positive, is pseudo-relevance feedback from the top
	// Feedback fused documents (pipeline and multi_space modes; see
	// pipeline.Request.Feedback): 0 is off, at most pipeline.MaxFeedback.
	Feedback int `json:"feedback,omitempty"`
	// Fusion is how the fusion modes combine the spaces' lists
	// (pipeline.Fusion): rrf (ranks only) or minmax (min-max normalised
	// scores); the zero value is pipeline.DefaultFusion.
	Fusion Fusion `json:"fusion,omitempty"`
	// Filter restricts every index search to the memories that match it
	// (before fusion, so top-k stays full). The zero Filter searches the
	// default project without superseded memories.
	Filter record.Filter `json:"filter"`
	// Expand adds, after ranking, the memories linked to the top hits by
	// relations of these types (one hop; SearchResult.Expanded).
	Expand []record.RelationType `json:"expand,omitempty"`
	// MinRelevance drops the hits whose relevance (SearchResult.Relevance)
	// is below it, in [0, 1]; 0 keeps every hit. RelevanceFloor is the
	// calibrated choice. When no hit clears it the result is empty and
	// says "nothing relevant" (SearchResult.NothingRelevant). Without E1
	// evidence (no model) there is no relevance and nothing is dropped.
	MinRelevance float64 `json:"min_relevance,omitempty"`
}

// SearchResult is a pipeline result with the memories resolved.
type SearchResult struct {
	pipeline.Result
	// Memories[i] is the memory of Result.Hits[i].
	Memories []record.Memory
	// Relevance[i] is Result.Hits[i]'s calibrated relevance and level
	// (relevance.go); nil when E1 listed no hit (no model, or a mode
	// without E1), and then MinRelevance drops nothing.
	Relevance []HitRelevance
	// NothingRelevant says that the search found hits but none reached
	// the request's MinRelevance (all were dropped); Best is the highest
	// relevance among them.
	NothingRelevant bool
	Best            float64
	// Expanded are the memories Expand reached from the hits, each once,
	// in hit order, that are not hits themselves and pass the filter.
	Expanded []Expansion
	// Filtered is how many memories the filter let the indexes search;
	// -1 when the filter kept every memory.
	Filtered int
	// Corrections are the query words replaced before encoding (none with
	// NoCorrect); Corrected is the query as searched (with
	// CorrectKeywordsOnly, by E6 and E9 only).
	Corrections []Correction
	Corrected   string
	// Encode is the time spent computing query views (before the stages).
	Encode time.Duration
	// Total is the end-to-end time of Search.
	Total time.Duration
}

// Correction is one query word replaced by a word of the store's
// vocabulary before the search ("stirng" → "string").
type Correction struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Expansion is a memory added to a search result by a relation of a hit.
type Expansion struct {
	Memory   record.Memory
	Relation record.Relation
	// From is the hit whose relation reached the memory.
	From record.ID
}
