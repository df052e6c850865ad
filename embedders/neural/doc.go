// Package neural builds the model-backed embedders of the fingerprint and the
// full 13-slot registry (Registry): the model-free slots of package modelfree
// plus one embedder per model-backed slot whose model is installed. A slot
// whose model is missing is embedders.Unavailable naming the model and the
// `cgraph models pull` that installs it; it never becomes a copy of another
// slot. Registry never fails because a model is missing; it fails when an
// installed model cannot be opened (a corrupt file), and with no ONNX Runtime
// library the model slots are unavailable saying `make setup`.
//
// Each model file is opened once (one runtime.Model, one ONNX Runtime
// session) and shared by every slot that uses it. The session opens on the
// first run that needs it — building the registry opens none, so a
// keyword-only search loads no model — unless Config.OpenNow opens every one
// while the registry builds, running one text through each, so that a
// device that cannot serve fails at once; Status().Device says where each
// model runs. Slots that read the same
// run of a model share it per batch (sharedPass): E1 and E12 (e5-small-v2),
// E7 and E10 (all-MiniLM-L6-v2). Every slot's producer is the model id plus a
// sha256 over the ONNX file's pinned sha256, the slot's recipe and its
// parameters (prefixes, the E5 head file, the E7 head file, the E12 projection file, the E10
// sentence rules), so any change is a different producer and a store built
// otherwise is refused.
//
// E1, E5, E7, E10 and E12 read a memory through its code view (codeview.View):
// the name its first code line defines, as words, then the text with every
// identifier split into its words. Prose passes nearly unchanged. E1, E5,
// E7 and E10 read a query with its identifiers split (queryView). The
// memory view is part of those slots' producers; the query view is not
// (queries are never stored).
//
// It must not search (package indexes) nor decide fusion (package pipeline).
//
// # Slot plan, and why
//
//   - E1 semantic: e5-small-v2 with "query: " / "passage: " (its training
//     format; the best general encoder the registries ship). The store
//     derives E1-Matryoshka-128 with fingerprint.Matryoshka128. Queries run
//     through e5 fine-tuned for code (e1tune.bin, E7's recipe: a rank-16
//     update of the fp32 file's 72 matrices fitted against E1's stored int8
//     document vectors), merged into the installed fp32 file at the first
//     query; documents stay the installed variant's own, so no stored value
//     changes. Query.Raw gives the untuned query, whose cosines the
//     engine's relevance model was calibrated on.
//   - E5 causal: bge-small-en-v1.5 — another model than E1, so E5 is not a
//     re-weighted E1 — one pass per memory, then a learned direction head
//     (e5head.json; shiftHead) gives the as-cause (side A) and as-effect
//     (side B) vectors and the query views. Prefixes alone do not make the
//     views asymmetric (figures below). Queries run through bge fine-tuned
//     for code (e5tune.bin, the same recipe fitted through the head: the
//     query's cause view against the stored effect vectors), merged into
//     the installed fp32 file at the first query; documents and every
//     stored E5 value stay the installed variant's own.
//   - E7 code: jina-embeddings-v2-base-code where installed (hub only), else
//     all-MiniLM-L6-v2, whose 1B training pairs include CodeSearchNet
//     (docstring, code) pairs, with its query side fine-tuned for code:
//     queries run through MiniLM plus a rank-16 low-rank update of its
//     weight matrices (e7tune.bin, lowRankFile), merged into the installed
//     fp32 file in memory at the first query; documents keep MiniLM's own
//     vectors of their code view, so the update changes no stored value.
//     Under --precision fp16 the queries run through the fp32 file beside
//     the fp16 ones (the documents stay the fp16 file's); where no fp32
//     file fits, queries are mapped by the older linear head instead
//     (e7head.bin, a 384×384 map in projection's format). Both are fitted on doc-comment → code pairs
//     mined from the Go module cache, Python's dist-packages, the JDK
//     sources and an npm tree — never GOROOT/src or /usr/lib/python3.11,
//     the trees of the development bench sets (scripts/e7tune, e7tune.txt,
//     TestUpdateE7Head, e7head.txt, docs/MODELS.md).
//   - E8 graph: the structure text of package structure embedded with
//     all-MiniLM-L6-v2: as-source = imports, calls, paths (what the memory
//     depends on); as-target = definitions, paths (what it provides). No
//     structure ⇒ an unavailable entry saying so, not a zero vector.
//   - E10 intent: all-MiniLM-L6-v2 token states of E7's run, mean-pooled over
//     the intent sentences (goal and imperative sentences, else the first)
//     and over the context sentences (the rest): another model than E1 and
//     another input than E7. The query is embedded whole; the direction picks
//     the stored side.
//   - E11 entities: the entity set of package entities plus the
//     all-MiniLM-L6-v2 embedding of the names (kind prefixes dropped); a
//     memory naming no entity is unavailable with that reason. Without
//     MiniLM, package entities' set-only fallback.
//   - E12 late interaction: colbertv2.0 if installed; else the fallback of
//     E1's e5-small-v2 token states from E1's own run, projected to 128 dims
//     by a PCA fitted offline on testdata/e12corpus.txt (e12pca.bin: 41,357
//     token states of 1,135 texts, 78.8% of the variance kept), L2-normalised
//     per token. Status fallback, and every entry's note names it.
//   - E13 learned sparse: a SPLADE model if installed, else unavailable
//     ("splade-pp-en-v1 is hub-only"). Never a copy of E6.
//
// Weights (Config.Precision): by default the "-q" dynamic-int8 builds of
// e5-small-v2 and bge-small-en-v1.5 (cosine 0.997 / 0.995 to fp32 on the
// runtime's parity texts; 1.8× faster end to end, below) and fp32
// all-MiniLM-L6-v2, whose int8 build drifts further (mean cosine 0.989, worst
// 0.969) and which is the cheapest model anyway; `cgraph models pull
// --default` (make setup) installs exactly these. On cuda the default is
// fp32 for every model: the int8 builds exist to save CPU time, and on the
// GPU they ran at 112–130 docs/s with its SMs 18–25% busy (issue 33).
// PrecisionFP32 and PrecisionInt8 take all-fp32 or all-int8 builds. int8
// activations are quantised per run, over every text in it, so on the CPU a
// dynamic-int8 model runs each text alone unless Config.BatchSize is set:
// a stored document's vector is then the one the same text gives as a query
// or in a later reembed, whatever was embedded beside it (int8Dynamic).
//
// Measured figures (E5 direction, M128 recall, ingest rates, bytes per
// slot) and how to reproduce them are in docs/BENCHMARKS.md.
package neural
