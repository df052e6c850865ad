"""Fit E12's token projection (384 -> 128, the format of e12pca.bin) for
late interaction on code: MaxSim of the projected, L2-normalised e5-small-v2
token states of a doc comment against those of its function, InfoNCE over
the batch (ColBERT's loss with a frozen encoder). Starts from the shipped PCA,
so step 0 is the fallback E12 as it ships.

Reads TestE12Dump's files (embedders/neural/e12dump_test.go):
  DUMP/<lang>/{train,test}/{q,d}.{f16,off}   mined pairs
  DUMP/set-<name>/{q,d}.{f16,off}, queries.jsonl   bench sets

  python train.py --dump DUMP --pca embedders/neural/e12pca.bin --hold go --out fit.bin
  python train.py --dump DUMP --pca … --eval-only            # the PCA alone

Evaluation (every test split and set): E1 alone (raw e5-small-v2, the mean
of the same token states as e5 pools them; the engine's E1 reads queries
through e1tune.bin, so its E1 is stronger), E12's MaxSim over E1's top 100, and RRF of
the two at E12 weights 0.15 (what S4 uses) and 1, nDCG@10 with a paired
bootstrap CI against E1 alone.
"""
import argparse
import json
import os
import struct
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e7tune"))
from setmetrics import ci  # noqa: E402

LANGS = ["go", "python", "java", "javascript"]


def load_side(d, side):
    off = np.fromfile(os.path.join(d, side + ".off"), dtype="<u4").astype(np.int64)
    rows = np.memmap(os.path.join(d, side + ".f16"), dtype="<f2", mode="r").reshape(-1, 384)
    assert rows.shape[0] == off[-1], (d, side, rows.shape, off[-1])
    return rows, off


def read_pca(path):
    b = open(path, "rb").read()
    assert b[:6] == b"CGPCA\x01"
    n_in, n_out = struct.unpack("<II", b[6:14])
    a = np.frombuffer(b[14:], dtype="<f4")
    return a[:n_in].copy(), a[n_in:].reshape(n_out, n_in).copy()


def write_pca(path, mean, comp):
    with open(path, "wb") as f:
        f.write(b"CGPCA\x01" + struct.pack("<II", comp.shape[1], comp.shape[0]))
        f.write(mean.astype("<f4").tobytes() + comp.astype("<f4").tobytes())


def texts(rows, off, idx, cap):
    """Padded [n, L, 384] float32 and mask [n, L] for texts idx (rows cut at cap)."""
    lens = [min(int(off[i + 1] - off[i]), cap) for i in idx]
    L = max(lens)
    x = np.zeros((len(idx), L, 384), np.float32)
    m = np.zeros((len(idx), L), np.float32)
    for k, i in enumerate(idx):
        x[k, : lens[k]] = rows[off[i] : off[i] + lens[k]]
        m[k, : lens[k]] = 1
    return x, m


def project(mean, comp, x):
    y = (x - mean) @ comp.T
    return y / np.maximum(np.linalg.norm(y, axis=-1, keepdims=True), 1e-12)


def pooled(rows, off):
    v = np.stack([np.asarray(rows[off[i] : off[i + 1]], np.float32).mean(0) for i in range(len(off) - 1)])
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def ndcg10(ranked, rel):
    rel = set(rel)
    dcg = sum(1 / np.log2(r + 2) for r, d in enumerate(ranked[:10]) if d in rel)
    ideal = sum(1 / np.log2(r + 2) for r in range(min(10, len(rel))))
    return dcg / ideal if ideal else 0.0


def rrf(lists, weights, k=60):
    s = {}
    for lst, w in zip(lists, weights):
        for r, d in enumerate(lst):
            s[d] = s.get(d, 0) + w / (k + r + 1)
    return sorted(s, key=lambda d: -s[d])


class Split:
    """One evaluation corpus: queries, documents, relevant documents per query."""

    def __init__(self, name, d, rel=None):
        self.name = name
        self.q, self.qoff = load_side(d, "q")
        self.d, self.doff = load_side(d, "d")
        nq = len(self.qoff) - 1
        self.rel = rel if rel is not None else [[i] for i in range(nq)]
        self.e1q, self.e1d = pooled(self.q, self.qoff), pooled(self.d, self.doff)
        self.top = np.argsort(-(self.e1q @ self.e1d.T), axis=1)[:, :100]
        self.dcache = {}

    def evaluate(self, mean, comp, cap):
        # every document's first cap rows, projected once
        keep = np.concatenate([np.arange(self.doff[j], min(self.doff[j + 1], self.doff[j] + cap)) for j in range(len(self.doff) - 1)])
        starts = np.concatenate([[0], np.cumsum([min(self.doff[j + 1] - self.doff[j], cap) for j in range(len(self.doff) - 1)])[:-1]])
        dy = np.concatenate([project(mean, comp, np.asarray(self.d[keep[k : k + 65536]], np.float32)) for k in range(0, len(keep), 65536)])
        e1, e12, f15, f1 = [], [], [], []
        for i in range(len(self.qoff) - 1):
            qy = project(mean, comp, np.asarray(self.q[self.qoff[i] : self.qoff[i + 1]], np.float32))
            ms = np.maximum.reduceat(qy @ dy.T, starts, axis=1).sum(0)  # MaxSim of every document
            cand = self.top[i]
            order = list(cand[np.argsort(-ms[cand], kind="stable")])
            base = list(cand)
            e1.append(ndcg10(base, self.rel[i]))
            e12.append(ndcg10(order, self.rel[i]))
            f15.append(ndcg10(rrf([base, order], [1, 0.15]), self.rel[i]))
            f1.append(ndcg10(rrf([base, order], [1, 1]), self.rel[i]))
        return {k: np.array(v) for k, v in (("e1", e1), ("e12", e12), ("rrf.15", f15), ("rrf1", f1))}


def report(tag, splits, mean, comp, cap):
    for s in splits:
        r = s.evaluate(mean, comp, cap)
        parts = [f"E1 {r['e1'].mean():.4f}"]
        for k in ("e12", "rrf.15", "rrf1"):
            parts.append(f"{k} {r[k].mean():.4f} ({ci(r[k], r['e1'])})")
        print(f"{tag:10s} {s.name:16s} " + "  ".join(parts), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dump", required=True)
    ap.add_argument("--pca", required=True)
    ap.add_argument("--hold", default="", help="language left out of training (its test split is the held-out figure)")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--cap", type=int, default=256, help="document token rows kept (training and evaluation)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument("--out", default="")
    a = ap.parse_args()

    mean0, comp0 = read_pca(a.pca)
    splits = []
    for lang in LANGS:
        d = os.path.join(a.dump, lang, "test")
        if os.path.exists(os.path.join(d, "q.off")):
            splits.append(Split(lang + "/test", d))
    for name in sorted(os.listdir(a.dump)):
        if name.startswith("set-"):
            d = os.path.join(a.dump, name)
            rel = [json.loads(l)["rel"] for l in open(os.path.join(d, "queries.jsonl"))]
            splits.append(Split(name, d, rel))
    report("pca", splits, mean0, comp0, a.cap)
    if a.eval_only:
        return

    import jax
    import jax.numpy as jnp
    import optax

    train = []
    for lang in LANGS:
        if lang == a.hold:
            continue
        q, qoff = load_side(os.path.join(a.dump, lang, "train"), "q")
        d, doff = load_side(os.path.join(a.dump, lang, "train"), "d")
        train.append((lang, q, qoff, d, doff))
    print("training on", [t[0] for t in train], "pairs", [len(t[2]) - 1 for t in train], flush=True)

    params = {"mean": jnp.asarray(mean0), "comp": jnp.asarray(comp0)}

    def loss_fn(p, qx, qm, dx, dm):
        def proj(x):
            y = (x - p["mean"]) @ p["comp"].T
            return y / jnp.maximum(jnp.linalg.norm(y, axis=-1, keepdims=True), 1e-12)

        qy, dy = proj(qx), proj(dx)
        sim = jnp.einsum("atk,bsk->abts", qy, dy)
        sim = jnp.where(dm[None, :, None, :] > 0, sim, -1e4).max(-1)  # [a, b, t]
        s = (sim * qm[:, None, :]).sum(-1) / qm.sum(-1, keepdims=True)  # mean over query tokens
        logits = s / a.tau
        return -jnp.mean(jax.nn.log_softmax(logits, axis=1)[jnp.arange(len(qx)), jnp.arange(len(qx))])

    opt = optax.adam(a.lr)
    state = opt.init(params)

    @jax.jit
    def step(p, st, qx, qm, dx, dm):
        l, g = jax.value_and_grad(loss_fn)(p, qx, qm, dx, dm)
        up, st = opt.update(g, st, p)
        return optax.apply_updates(p, up), st, l

    rng = np.random.default_rng(a.seed)
    t0, run = time.time(), []
    for it in range(a.steps):
        lang, q, qoff, d, doff = train[it % len(train)]  # each batch one language
        idx = rng.choice(len(qoff) - 1, a.batch, replace=False)
        qx, qm = texts(q, qoff, idx, 64)
        dx, dm = texts(d, doff, idx, a.cap)
        # pad to fixed shapes so jit compiles once
        qx = np.pad(qx, ((0, 0), (0, 64 - qx.shape[1]), (0, 0)))
        qm = np.pad(qm, ((0, 0), (0, 64 - qm.shape[1])))
        dx = np.pad(dx, ((0, 0), (0, a.cap - dx.shape[1]), (0, 0)))
        dm = np.pad(dm, ((0, 0), (0, a.cap - dm.shape[1])))
        params, state, l = step(params, state, qx, qm, dx, dm)
        run.append(float(l))
        if (it + 1) % 100 == 0:
            print(f"step {it + 1} loss {np.mean(run[-100:]):.4f} ({time.time() - t0:.0f} s)", flush=True)
    mean1, comp1 = np.asarray(params["mean"]), np.asarray(params["comp"])
    report("fit", splits, mean1, comp1, a.cap)
    if a.out:
        write_pca(a.out, mean1, comp1)
        print("wrote", a.out)


if __name__ == "__main__":
    main()
