"""The two pair scorers train.py fits and evalsets.py measures, on MiniLM
(bert.py's forward of the ONNX graph cgraph runs):

- "ce", a plain cross-encoder: "[CLS] query [SEP] code [SEP]" with token
  types 0/1 and a linear head on the mean-pooled state;
- "gated", a joint encoder that starts as the bi-encoder: the query's and the
  code's token sequences side by side in one row, each with its own
  positions, attention between them behind a learned per-layer, per-head
  gate (very negative: each text is encoded alone, exactly as E7's MiniLM
  reads it), scored by the cosine of the two mean-pooled halves over tau.
"""
import os, sys, numpy as np, jax, jax.numpy as jnp
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e7tune"))
import bert

TARGETS = ["attention.self.query", "attention.self.key", "attention.self.value",
           "attention.output.dense", "intermediate.dense", "output.dense"]


class Scorer:
    def __init__(self, onnx, arch, maxlen=128, qmax=32, tau=0.05):
        self.p, _, self.nl = bert.load(onnx)
        tj = onnx.rsplit("/", 1)[0] + "/tokenizer.json"
        self.arch, self.tau = arch, tau
        self.pair = bert.tokenizer(tj, maxlen); self.pair.enable_truncation(maxlen, strategy="longest_first")
        self.tq, self.td = bert.tokenizer(tj, qmax), bert.tokenizer(tj, maxlen - qmax)
        self._jit = jax.jit(self.score)

    def init(self, rng, rank, gate=-6.0):
        lora = bert.lora_init(self.p, self.nl, TARGETS, rank, rng)
        if self.arch == "ce":
            return {"lora": lora, "w": jnp.asarray(rng.normal(0, 0.05, 384).astype(np.float32))}
        return {"lora": lora, "gate": jnp.full((self.nl, 12), gate, jnp.float32)}

    @staticmethod
    def save(path, params):
        np.savez(path, **{k + ".A": np.asarray(v[0]) for k, v in params["lora"].items()},
                 **{k + ".B": np.asarray(v[1]) for k, v in params["lora"].items()},
                 **{"extra." + k: np.asarray(v) for k, v in params.items() if k != "lora"})

    @staticmethod
    def load(path):
        z = np.load(path)
        return {"lora": {k[:-2]: (jnp.asarray(z[k]), jnp.asarray(z[k[:-2] + ".B"])) for k in z.files if k.endswith(".A")},
                **{k[6:]: jnp.asarray(z[k]) for k in z.files if k.startswith("extra.")}}

    def batch(self, qs, ds):
        """Token arrays of the pairs (qs[i], ds[i]): ids, mask, and token types
        (ce) or segments (gated), plus positions."""
        if self.arch == "ce":
            encs = self.pair.encode_batch(list(zip(qs, ds)))
            rows = [(e.ids, e.type_ids, list(range(len(e.ids)))) for e in encs]
        else:
            eq, ed = self.tq.encode_batch(list(qs)), self.td.encode_batch(list(ds))
            rows = [(a.ids + b.ids, [0] * len(a.ids) + [1] * len(b.ids), list(range(len(a.ids))) + list(range(len(b.ids))))
                    for a, b in zip(eq, ed)]
        T = max(len(r[0]) for r in rows); T = ((T + 31) // 32) * 32
        ids = np.zeros((len(rows), T), np.int32); mask = np.zeros_like(ids); seg = np.zeros_like(ids); pos = np.zeros_like(ids)
        for i, (a, s, q) in enumerate(rows):
            n = len(a); ids[i, :n] = a; mask[i, :n] = 1; seg[i, :n] = s; pos[i, :n] = q
            seg[i, n:] = 2  # padding: its own segment, masked anyway
        return tuple(jnp.asarray(x) for x in (ids, mask, seg, pos))

    def score(self, params, ids, mask, seg, pos):
        if self.arch == "ce":
            v = bert.encode(self.p, ids, mask, self.nl, lora=params["lora"], tt=jnp.minimum(seg, 1))
            return v @ params["w"]
        x = bert.encode(self.p, ids, mask, self.nl, lora=params["lora"], pos=pos, seg=seg, gate=params["gate"], pool="states")
        def half(k):
            m = (mask * (seg == k))[:, :, None].astype(x.dtype)
            v = (x * m).sum(1) / jnp.maximum(m.sum(1), 1e-9)
            return v / jnp.linalg.norm(v, axis=-1, keepdims=True)
        return (half(0) * half(1)).sum(-1) / self.tau

    def scores(self, params, pairs, bs=32):
        """Scores of many (query, code) pairs, batched by length."""
        out = np.zeros(len(pairs), np.float32)
        order = np.argsort([len(q) + len(d) for q, d in pairs])
        for i in range(0, len(pairs), bs):
            ix = order[i:i + bs]
            out[ix] = np.asarray(self._jit(params, *self.batch([pairs[j][0] for j in ix], [pairs[j][1] for j in ix])))
        return out
