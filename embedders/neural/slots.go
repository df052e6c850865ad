package neural

import (
	"crypto/sha256"
	_ "embed"
	"fmt"

	"github.com/cgraph/cgraph/embedders"
	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models"
)

// Models of the slot plan (package doc). Each is the fp32 id; Config.Precision
// may select its "-q" variant.
const (
	modelE1      models.ModelID = "e5-small-v2"
	modelE5      models.ModelID = "bge-small-en-v1.5"
	modelMiniLM  models.ModelID = "all-minilm-l6-v2"
	modelCode    models.ModelID = "jina-embeddings-v2-base-code"
	modelColBERT models.ModelID = "colbertv2.0"
)

// unavailable is the embedder of a slot whose model cannot serve.
func unavailable(s fingerprint.SlotID, reason string) embedders.Embedder {
	return embedders.NewUnavailable(s, reason)
}

// buildE1: e5-small-v2 with its manifest prefixes "query: " / "passage: ".
// Queries run through e5 fine-tuned for code (e1tune.bin merged into the
// fp32 file) where that file is installed; documents, E1's producer and so
// every stored E1 vector stay the installed variant's own.
func buildE1(l *loader) (embedders.Embedder, error) {
	id := l.cfg.variant(l.mf, modelE1)
	lm, why, err := l.get(id)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E1, why), err
	}
	qp, dp := lm.meta.QueryPrefix, lm.meta.PassagePrefix
	e := &denseEmbedder{slot: fingerprint.E1, lm: lm, docPrefix: dp, queryPrefix: qp,
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer: lm.producer("E1 dense v1", dp, qp, codeViewRecipe)}}
	rep := fmt.Sprintf("%d-d %s (%q / %q, mean pooled, L2); first 128 dims re-normalised = E1-Matryoshka-128; "+codeViewNote+"; onnx sha256 %s",
		lm.meta.Dims, id, qp, dp, lm.short())
	tune, err := e1LowRank()
	if err != nil {
		return nil, err
	}
	base, where := l.fp32File(modelE1, fmt.Sprintf("%x", tune.Base), lm, true)
	if base == nil {
		e.status.Representation = rep + fmt.Sprintf("; queries through raw e5: its fine-tuned query encoder (e1tune.bin sha256 %x) fits only the fp32 %s file (`cgraph models pull %s`)", e1TuneSHA256[:6], modelE1, modelE1)
		return e, nil
	}
	e.queryLM = l.derived(base, modelE1+"+e1tune", tune.merge)
	e.status.Representation = rep + fmt.Sprintf("; queries encoded by e5 fine-tuned for code%s (e1tune.bin sha256 %x: a rank-%d update of its %d weight matrices fitted on doc-comment → code pairs of Python, Java and JavaScript against E1's stored documents, which stay as stored)",
		where, e1TuneSHA256[:6], tune.Updates[0].Rank, len(tune.Updates))
	return e, nil
}

// buildE7: a code encoder. jina-embeddings-v2-base-code where installed (a
// code model; hub only); else all-MiniLM-L6-v2, whose 1B training pairs
// include CodeSearchNet (docstring, code) pairs — the best code-aware encoder
// this machine's registries ship — with E7's learned query head (e7head.bin):
// a 384×384 map fitted so that a description's vector lands near its code's.
// Documents keep MiniLM's own vectors; only queries are mapped.
func buildE7(l *loader) (embedders.Embedder, error) {
	id, why := l.cfg.variant(l.mf, modelMiniLM), "all-MiniLM-L6-v2 (trained with CodeSearchNet pairs among its 1B pairs; jina-embeddings-v2-base-code is not installed — hub only)"
	code := l.installed(modelCode)
	if code {
		id, why = modelCode, "jina-embeddings-v2-base-code (a code-trained encoder)"
	}
	lm, reason, err := l.get(id)
	if err != nil || lm == nil {
		return unavailable(fingerprint.E7, reason), err
	}
	qp, dp := lm.meta.QueryPrefix, lm.meta.PassagePrefix
	e := &denseEmbedder{slot: fingerprint.E7, lm: lm, docPrefix: dp, queryPrefix: qp,
		status: embedders.SlotStatus{State: fingerprint.StatusPresent, Dims: lm.meta.Dims,
			Producer:       lm.producer("E7 dense v1", dp, qp, codeViewRecipe),
			Representation: fmt.Sprintf("%d-d %s: %s; "+codeViewNote+"; onnx sha256 %s", lm.meta.Dims, id, why, lm.short())}}
	if code {
		return e, nil
	}
	// MiniLM's documents are head-pooled (a new producer: stores written
	// before it re-embed E7).
	e.headTokens = e7HeadTokens
	e.status.Producer = lm.producer("E7 dense v2", dp, qp, codeViewRecipe, e7HeadRecipe)
	// The producer stays raw MiniLM's: it names what made the stored
	// values, and the tuned encoder and the head read queries only, so a
	// store's E7 vectors are the same with or without them and stay valid
	// across a refit. The representation (embedders, explain) names them.
	tune, err := e7LowRank()
	if err != nil {
		return nil, err
	}
	base, also := l.fp32File(modelMiniLM, fmt.Sprintf("%x", tune.Base), lm, false)
	if base != nil {
		e.queryLM = l.derived(base, id+"+e7tune", tune.merge)
		e.status.Representation = fmt.Sprintf("%d-d %s: %s; queries encoded by MiniLM fine-tuned for code%s (e7tune.bin sha256 %x: a rank-%d update of its %d weight matrices fitted on doc-comment → code pairs of Go, Python, Java and JavaScript, documents kept as stored); "+codeViewNote+"; onnx sha256 %s",
			lm.meta.Dims, id, why, also, e7TuneSHA256[:6], tune.Updates[0].Rank, len(tune.Updates), lm.short())
		return e, nil
	}
	h, err := loadE7Head(lm.meta.Dims)
	if err != nil {
		return nil, err
	}
	e.queryHead = &h
	e.status.Representation = fmt.Sprintf("%d-d %s: %s; queries mapped by the learned code head (e7head.bin sha256 %x, fitted on doc-comment → code pairs of Go, Python, Java and JavaScript; the fine-tuned query encoder e7tune.bin fits only the fp32 all-minilm-l6-v2 file); "+codeViewNote+"; onnx sha256 %s",
		lm.meta.Dims, id, why, e7HeadSHA256[:6], lm.short())
	return e, nil
}

// fp32File is the fp32 file of model base that a fine-tuned query
// encoder (e1tune.bin, e7tune.bin) was fitted on — the one with sha256
// want — and how it sits beside the slot's documents (lm, the installed
// variant the slot runs): lm itself where lm is that file; else the fp32
// file of the built-in manifest, in the fp32 models directory under
// --precision fp16 (Config.fp32Dir; fp16 document vectors are within cosine
// 0.99999 of the fp32 file's, docs/CUDA.md run 19) or in the models
// directory beside an int8 variant when int8 is true (E1's update was
// fitted against the int8 file's stored documents; E7's against the fp32
// file's, and beside int8 documents E7 keeps its head); nil where it is not
// installed or is another file. Queries then run through the same
// fine-tuned fp32 graph on every precision and device.
func (l *loader) fp32File(base models.ModelID, want string, lm *loaded, int8 bool) (*loaded, string) {
	if lm.onnx == want {
		return lm, ""
	}
	if l.cfg.fp32Dir != "" {
		mf, err := models.Default()
		if err != nil {
			return nil, ""
		}
		f, _, err := l.resolve(l.cfg.fp32Dir, mf, base)
		if err != nil || f == nil || f.onnx != want {
			return nil, ""
		}
		return f, " (the fp32 file's, beside these fp16 documents)"
	}
	if !int8 {
		return nil, ""
	}
	// resolve, not get: only the derived encoder opens a session.
	f, _, err := l.resolve(l.dir, l.mf, base)
	if err != nil || f == nil || f.onnx != want {
		return nil, ""
	}
	return f, fmt.Sprintf(" (the fp32 file's, beside these %s documents)", lm.id)
}

// e7HeadTokens is how many leading token states E7's MiniLM documents
// weigh beside their mean, and e7HeadWeight how much (headPooled): chosen
// on the Go and Python sets, by their mean E7 nDCG@10, among 16, 24, 32
// and 48 tokens at weight 1 and 32 at 0.5 and 2 (after 64, 128 and
// separate short runs; docs/BENCHMARKS.md "E7 reads a function's head").
const (
	e7HeadTokens = 32
	e7HeadWeight = 2
)

// e7HeadRecipe names headPooled's settings in E7's producer; change it
// with them.
const e7HeadRecipe = "documents head-pooled: unit sum of the mean-pooled vector and 2 × the mean of the first 32 token states, each unit"

// e1Tune is E1's fine-tuned query encoder: a low-rank update of the fp32
// e5-small-v2 ONNX file's weight matrices (lowRankFile), fitted by
// scripts/e7tune (train.py --docs e1) on doc-comment → code pairs of
// Python, Java and JavaScript with E1's stored document vectors held fixed;
// provenance in e1tune.txt and docs/MODELS.md.
//
//go:embed e1tune.bin
var e1Tune []byte

// e1TuneSHA256 identifies the update in E1's representation.
var e1TuneSHA256 = sha256.Sum256(e1Tune)

// e1LowRank decodes the embedded update.
func e1LowRank() (lowRankFile, error) { return embeddedLowRank("e1tune.bin", e1Tune) }

// e5Tune is E5's fine-tuned query encoder: a low-rank update of the fp32
// bge-small-en-v1.5 ONNX file's weight matrices (lowRankFile), fitted by
// scripts/e7tune (train.py --docs e5) through E5's direction head on
// doc-comment → code pairs of Python, Java and JavaScript with E5's stored
// vectors held fixed; provenance in e5tune.txt and docs/MODELS.md.
//
//go:embed e5tune.bin
var e5Tune []byte

// e5TuneSHA256 identifies the update in E5's representation.
var e5TuneSHA256 = sha256.Sum256(e5Tune)

// e5LowRank decodes the embedded update.
func e5LowRank() (lowRankFile, error) { return embeddedLowRank("e5tune.bin", e5Tune) }

// embeddedLowRank decodes an update embedded in the binary as name.
func embeddedLowRank(name string, data []byte) (lowRankFile, error) {
	f, err := parseLowRank(data)
	if err != nil {
		return f, fmt.Errorf("neural: embedded %s: %w", name, err)
	}
	return f, nil
}

// e7Tune is E7's fine-tuned query encoder: a low-rank update of the fp32
// all-minilm-l6-v2 ONNX file's weight matrices (lowRankFile), fitted by
// scripts/e7tune on doc-comment → code pairs with the documents' stored
// vectors held fixed; provenance in e7tune.txt and docs/MODELS.md.
//
//go:embed e7tune.bin
var e7Tune []byte

// e7TuneSHA256 identifies the update in E7's representation.
var e7TuneSHA256 = sha256.Sum256(e7Tune)

// e7LowRank decodes the embedded update.
func e7LowRank() (lowRankFile, error) { return embeddedLowRank("e7tune.bin", e7Tune) }

// e7Head is E7's query head, in the format of projection.MarshalBinary:
// Mean zero, Components a square map. Fitted by TestUpdateE7Head
// (e7head_test.go); provenance in e7head.txt and docs/MODELS.md.
//
//go:embed e7head.bin
var e7Head []byte

// e7HeadSHA256 identifies the head in E7's representation (embedders,
// --explain); it is not in the producer, which names what made the stored
// document vectors.
var e7HeadSHA256 = sha256.Sum256(e7Head)

// loadE7Head decodes the embedded head and checks it maps dims-d vectors.
func loadE7Head(dims int) (projection, error) {
	h, err := parseProjection(e7Head)
	if err != nil {
		return h, fmt.Errorf("neural: embedded e7head.bin: %w", err)
	}
	if h.In != dims || h.Out != dims {
		return h, fmt.Errorf("neural: embedded e7head.bin maps %d→%d dims, E7's model gives %d", h.In, h.Out, dims)
	}
	return h, nil
}
