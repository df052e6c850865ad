"""tiny_models.py builds the tiny tokenizer and ONNX models the Go tests run without any
downloaded weights (fixtures only; nothing in the product runs Python).

Every model computes, for token ids x, token types y and positions p:

    hidden[b,t,:] = tanh(E[x[b,t]] + TT[y[b,t]] + P[t])          (H = 8)

and the outputs are
    tiny_encoder.onnx   last_hidden_state = hidden               inputs ids, mask, types
    tiny_mlm.onnx       logits = hidden @ W + bias  (masked-LM)  inputs ids, mask
    tiny_pooled.onnx    sentence_embedding = mean_t hidden       (rank 2, which the runtime
                                                                  must refuse for token pooling)
    tiny_encoder_pooled_{mean,cls}.onnx   tiny_encoder plus scripts/pooled/add_pooled.py's
                        pooled_mean (masked mean of hidden) or pooled_cls (hidden[:, 0])

The weights are written to weights.json so that the Go tests recompute every output
independently (token vectors, mean/CLS pooling, SPLADE max_t log(1+relu(logits))).
Positions make the output depend on where a token sits, so padding mistakes show.

Usage: python tiny_models.py   (writes into ../../runtime/testdata/tiny and
../../tokenizer/testdata)
"""

import gzip
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(MODELS, "runtime", "testdata", "tiny")
TOKOUT = os.path.join(MODELS, "tokenizer", "testdata")

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "the a an of to and in is it for on with as that this be are was by at or from not "
    "memory search vector token model error fix code func return go rust python "
    "quick brown fox jump lazy dog hello world data base store"
).split()
PIECES = ["##s", "##ed", "##ing", "##er", "##ly", "##x", "##y", "##z", "##a", "##e", "##o", "##t", "##n"]
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789.,!?;:()[]{}'\"-_/+=*&%$#@<>")
MAXPOS = 64
H = 8


def vocab():
    v = {}
    for tok in SPECIALS + WORDS + PIECES + CHARS:
        if tok not in v:
            v[tok] = len(v)
    return v


def build_tokenizer(v):
    tok = Tokenizer(models.WordPiece(v, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", v["[CLS]"]), ("[SEP]", v["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece()
    tok.add_special_tokens(SPECIALS)
    return tok


def hidden_graph(inputs_present):
    """Nodes computing 'hidden' [B,T,H] from the given inputs."""
    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["emb"], axis=0),
        helper.make_node("Shape", ["input_ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["seqlen"], axis=0),
        helper.make_node("Range", ["zero", "seqlen", "one"], ["pos"]),
        helper.make_node("Gather", ["P", "pos"], ["posemb"], axis=0),
        helper.make_node("Add", ["emb", "posemb"], ["s1"]),
    ]
    last = "s1"
    if "token_type_ids" in inputs_present:
        nodes += [
            helper.make_node("Gather", ["TT", "token_type_ids"], ["typeemb"], axis=0),
            helper.make_node("Add", ["s1", "typeemb"], ["s2"]),
        ]
        last = "s2"
    nodes.append(helper.make_node("Tanh", [last], ["hidden"]))
    return nodes


def make_model(name, inputs_present, out_nodes, outputs, inits):
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in inputs_present]
    graph = helper.make_graph(hidden_graph(inputs_present) + out_nodes, name, ins, outputs, inits)
    # Inputs that the graph does not read still appear (the runtime must feed them).
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="cgraph-tiny")
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def main():
    rng = np.random.default_rng(20261122)
    v = vocab()
    V = len(v)
    E = rng.normal(0, 0.8, (V, H)).astype(np.float32)
    TT = rng.normal(0, 0.3, (2, H)).astype(np.float32)
    P = rng.normal(0, 0.3, (MAXPOS, H)).astype(np.float32)
    W = rng.normal(0, 1.0, (H, V)).astype(np.float32)
    bias = rng.normal(-0.5, 0.5, (V,)).astype(np.float32)

    def inits(extra=()):
        base = [
            numpy_helper.from_array(E, "E"),
            numpy_helper.from_array(TT, "TT"),
            numpy_helper.from_array(P, "P"),
            numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
            numpy_helper.from_array(np.array(1, dtype=np.int64), "one"),
        ]
        return base + list(extra)

    os.makedirs(OUT, exist_ok=True)
    os.makedirs(TOKOUT, exist_ok=True)

    enc = make_model(
        "tiny_encoder",
        ["input_ids", "attention_mask", "token_type_ids"],
        [helper.make_node("Identity", ["hidden"], ["last_hidden_state"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", H])],
        inits(),
    )
    onnx.save(enc, os.path.join(OUT, "tiny_encoder.onnx"))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "pooled"))
    from add_pooled import add_pooled
    for pooling in ("mean", "cls"):
        add_pooled(os.path.join(OUT, "tiny_encoder.onnx"), os.path.join(OUT, f"tiny_encoder_pooled_{pooling}.onnx"), pooling)

    mlm = make_model(
        "tiny_mlm",
        ["input_ids", "attention_mask"],
        [
            helper.make_node("MatMul", ["hidden", "W"], ["mm"]),
            helper.make_node("Add", ["mm", "bias"], ["logits"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", V])],
        inits([numpy_helper.from_array(W, "W"), numpy_helper.from_array(bias, "bias")]),
    )
    onnx.save(mlm, os.path.join(OUT, "tiny_mlm.onnx"))

    pooled = make_model(
        "tiny_pooled",
        ["input_ids", "attention_mask", "token_type_ids"],
        [helper.make_node("ReduceMean", ["hidden"], ["sentence_embedding"], axes=[1], keepdims=0)],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", H])],
        inits(),
    )
    onnx.save(pooled, os.path.join(OUT, "tiny_pooled.onnx"))

    tok = build_tokenizer(v)
    tok.save(os.path.join(OUT, "tokenizer.json"))
    tok.save(os.path.join(TOKOUT, "tiny.tokenizer.json"))
    # The same tokenizer without model.type: hftokenizer would silently yield [UNK].
    with open(os.path.join(OUT, "tokenizer.json")) as f:
        j = json.load(f)
    del j["model"]["type"]
    with open(os.path.join(TOKOUT, "tiny_no_type.tokenizer.json"), "w") as f:
        json.dump(j, f, ensure_ascii=False, indent=1)

    with open(os.path.join(OUT, "weights.json"), "w") as f:
        json.dump(
            {
                "H": H,
                "V": V,
                "max_positions": MAXPOS,
                "E": E.tolist(),
                "TT": TT.tolist(),
                "P": P.tolist(),
                "W": W.tolist(),
                "bias": bias.tolist(),
            },
            f,
        )

    # Reference ids for the tiny tokenizer over the shared corpus (short texts only).
    import corpus

    texts, kinds = corpus.build()
    ref = Tokenizer.from_file(os.path.join(OUT, "tokenizer.json"))
    cases = [
        {"kind": k, "text": t, "ids": ref.encode(t).ids}
        for t, k in zip(texts, kinds)
        if len(t) < 3000
    ]
    data = json.dumps({"model": "tiny", "cases": cases}, ensure_ascii=False, separators=(",", ":")).encode()
    with open(os.path.join(TOKOUT, "parity_tiny_ids.json.gz"), "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as g:
            g.write(data)
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)))


if __name__ == "__main__":
    main()
