"""nDCG@10 of exact cosine rankings over a bench set's dumped vectors, shared by
evalsets.py and e1misses.py."""
import numpy as np


def ndcg(q, d, rels):
    """Per-query nDCG@10 of q's rows ranked against d's rows by dot product
    (unit vectors: cosine); rels[i] lists query i's relevant row numbers."""
    s = q @ d.T; top = np.argsort(-s, 1)[:, :10]; out = []
    for i, r in enumerate(rels):
        r = set(r); dcg = sum(1 / np.log2(k + 2) for k, j in enumerate(top[i]) if j in r)
        out.append(dcg / sum(1 / np.log2(k + 2) for k in range(min(len(r), 10))) if r else 0.0)
    return np.array(out)
