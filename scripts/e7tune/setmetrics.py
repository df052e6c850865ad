"""nDCG@10 of exact cosine rankings over a bench set's dumped vectors, shared by
evalsets.py and e1misses.py (and, per ranked list, scripts/cetune), and the paired bootstrap CI they report."""
import numpy as np


def ndcg(q, d, rels):
    """Per-query nDCG@10 of q's rows ranked against d's rows by dot product
    (unit vectors: cosine); rels[i] lists query i's relevant row numbers."""
    top = np.argsort(-(q @ d.T), 1)[:, :10]
    return np.array([ndcg_list(t, r) for t, r in zip(top, rels)])


def ndcg_list(top, rel):
    """nDCG@10 of one ranked list of rows against the relevant rows rel
    (binary relevance; 0 when rel is empty)."""
    r = set(rel)
    if not r:
        return 0.0
    dcg = sum(1 / np.log2(k + 2) for k, j in enumerate(top[:10]) if j in r)
    return dcg / sum(1 / np.log2(k + 2) for k in range(min(len(r), 10)))


def ci(x, y):
    """Mean of x − y per query with its paired bootstrap 95% CI (10,000
    resamples, seed 1), formatted "+0.0123 [+0.0010, +0.0240]"."""
    r = np.random.default_rng(1); n = len(x); dd = x - y
    ms = np.sort([dd[r.integers(0, n, n)].mean() for _ in range(10000)])
    return f"{dd.mean():+.4f} [{ms[250]:+.4f}, {ms[9749]:+.4f}]"
