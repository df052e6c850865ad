"""nDCG@10 of exact cosine rankings over a bench set's dumped vectors, shared by
evalsets.py and e1misses.py, and the paired bootstrap CI they report."""
import numpy as np


def ndcg(q, d, rels):
    """Per-query nDCG@10 of q's rows ranked against d's rows by dot product
    (unit vectors: cosine); rels[i] lists query i's relevant row numbers."""
    s = q @ d.T; top = np.argsort(-s, 1)[:, :10]; out = []
    for i, r in enumerate(rels):
        r = set(r); dcg = sum(1 / np.log2(k + 2) for k, j in enumerate(top[i]) if j in r)
        out.append(dcg / sum(1 / np.log2(k + 2) for k in range(min(len(r), 10))) if r else 0.0)
    return np.array(out)


def ci(x, y):
    """Mean of x − y per query with its paired bootstrap 95% CI (10,000
    resamples, seed 1), formatted "+0.0123 [+0.0010, +0.0240]"."""
    r = np.random.default_rng(1); n = len(x); dd = x - y
    ms = np.sort([dd[r.integers(0, n, n)].mean() for _ in range(10000)])
    return f"{dd.mean():+.4f} [{ms[250]:+.4f}, {ms[9749]:+.4f}]"
