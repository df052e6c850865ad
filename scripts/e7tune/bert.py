"""MiniLM (BERT) forward in JAX with weights read from the ONNX graph cgraph runs."""
import json, numpy as np, onnx, jax, jax.numpy as jnp
from onnx import numpy_helper
from tokenizers import Tokenizer

LINS = ["attention/self/query", "attention/self/key", "attention/self/value",
        "attention/output/dense", "intermediate/dense", "output/dense"]

def load(path):
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    p = {k: init[k] for k in init if not k.startswith("onnx::") and k != "embeddings.position_ids"}
    names = {}  # our key -> onnx initializer name of a MatMul weight
    for n in m.graph.node:
        if n.op_type == "MatMul" and n.input[1].startswith("onnx::"):
            # /encoder/layer.0/attention/self/query/MatMul
            parts = n.name.strip("/").split("/")
            layer = int(parts[1].split(".")[1])
            lin = "/".join(parts[2:-1])
            key = f"encoder.layer.{layer}.{lin.replace('/', '.')}.weight"
            p[key] = init[n.input[1]]
            names[key] = n.input[1]
    nl = 1 + max(int(k.split(".")[2]) for k in p if k.startswith("encoder.layer."))
    return {k: jnp.asarray(v) for k, v in p.items()}, names, nl

def ln(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps) * w + b

def encode(p, ids, mask, nl, heads=12, lora=None, scale=1.0, pool="mean", head_k=32, head_w=2.0, tt=None,
           pos=None, seg=None, gate=None):
    """Unit-length sentence vectors: mean over the tokens (MiniLM, e5), the
    first token's state (pool="cls": bge, as models/ sets it), or E7's
    documents' head pooling (pool="head": the unit mean plus head_w times the
    unit mean of the first head_k states, unit length; headPooled in
    embedders/neural/dense.go). tt: token type ids (a pair's second
    segment, as a cross-encoder reads it); none means every token is type 0.
    pos: position ids [B, T] (none: 0..T-1). seg with gate: two texts side by
    side in one row (seg 0 / 1); attention between them gets gate[l, h] added
    to its logits, so a very negative gate encodes each alone.
    pool="states": the unpooled last states [B, T, D]."""
    B, T = ids.shape
    x = p["embeddings.word_embeddings.weight"][ids] + (p["embeddings.token_type_embeddings.weight"][0] if tt is None
        else p["embeddings.token_type_embeddings.weight"][tt]) \
        + (p["embeddings.position_embeddings.weight"][:T] if pos is None else p["embeddings.position_embeddings.weight"][pos])
    x = ln(x, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"])
    neg = (1.0 - mask[:, None, None, :].astype(x.dtype)) * -1e9
    def lin(x, l, name):
        k = f"encoder.layer.{l}.{name.replace('/', '.')}"
        y = x @ p[k + ".weight"] + p[k + ".bias"]
        if lora is not None and k in lora:
            a, b = lora[k]
            y = y + scale * ((x @ a) @ b)
        return y
    D = x.shape[-1]; hd = D // heads
    for l in range(nl):
        q = lin(x, l, "attention/self/query").reshape(B, T, heads, hd).transpose(0, 2, 1, 3)
        k = lin(x, l, "attention/self/key").reshape(B, T, heads, hd).transpose(0, 2, 1, 3)
        v = lin(x, l, "attention/self/value").reshape(B, T, heads, hd).transpose(0, 2, 1, 3)
        s = q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(hd) + neg
        if seg is not None:
            s = s + (seg[:, None, :, None] != seg[:, None, None, :]) * gate[l][None, :, None, None]
        a = jax.nn.softmax(s, -1)
        c = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
        pre = f"encoder.layer.{l}."
        x = ln(x + lin(c, l, "attention/output/dense"), p[pre + "attention.output.LayerNorm.weight"], p[pre + "attention.output.LayerNorm.bias"])
        h = jax.nn.gelu(lin(x, l, "intermediate/dense"), approximate=False)
        x = ln(x + lin(h, l, "output/dense"), p[pre + "output.LayerNorm.weight"], p[pre + "output.LayerNorm.bias"])
    if pool == "states":
        return x
    if pool == "cls":
        v = x[:, 0]
    elif pool == "head":
        m = mask[:, :, None].astype(x.dtype)
        v = (x * m).sum(1) / jnp.maximum(m.sum(1), 1e-9)
        v = v / jnp.linalg.norm(v, axis=-1, keepdims=True)
        h = (x[:, :head_k] * m[:, :head_k]).sum(1)
        v = v + head_w * h / jnp.linalg.norm(h, axis=-1, keepdims=True)
    else:
        m = mask[:, :, None].astype(x.dtype)
        v = (x * m).sum(1) / jnp.maximum(m.sum(1), 1e-9)
    return v / jnp.linalg.norm(v, axis=-1, keepdims=True)

def lora_init(p, nl, targets, rank, rng):
    """A rank-`rank` LoRA update (A, B) per target matrix of every layer, in
    layer then target order: A ~ N(0, 1/fan_in) drawn from rng, B zero, so
    the update starts at nothing. train.py and train2.py share it."""
    lora = {}
    for l in range(nl):
        for t in targets:
            k = f"encoder.layer.{l}.{t}"
            W = p[k + ".weight"]
            lora[k] = (jnp.asarray(rng.normal(0, 1 / np.sqrt(W.shape[0]), (W.shape[0], rank)).astype(np.float32)),
                       jnp.zeros((rank, W.shape[1]), jnp.float32))
    return lora

def tokenizer(path, maxlen):
    t = Tokenizer.from_file(path)
    t.enable_truncation(maxlen)
    t.no_padding()
    return t

def batch_ids(tok, texts, bucket=16):
    encs = tok.encode_batch(texts)
    T = max(len(e.ids) for e in encs)
    T = ((T + bucket - 1) // bucket) * bucket
    ids = np.zeros((len(texts), T), np.int32); mask = np.zeros((len(texts), T), np.int32)
    for i, e in enumerate(encs):
        ids[i, :len(e.ids)] = e.ids; mask[i, :len(e.ids)] = 1
    return ids, mask
