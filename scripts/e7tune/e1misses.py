"""E7 fits on the queries E1 misses: per bench set, the queries where E1 alone
(tuned queries, stored documents; exact cosine) scores nDCG@10 below 0.5, and two
fits' mean nDCG@10 on those and on the rest, and B − A over all queries and
over E1's misses with paired bootstrap 95% CIs, from evalsets.py --save vectors.

    python e1misses.py SETS_DUMP TAG_A TAG_B
"""
import sys
import json, numpy as np
from setmetrics import ci, ndcg
SETS, A, B = sys.argv[1:4]
for name in "go,py,java,js,rust,php".split(","):
    d = f"{SETS}/{name}"
    nv = sum(1 for _ in open(d + "/views.jsonl")); qs = [json.loads(l) for l in open(d + "/queries.jsonl")]
    rels = [q["rel"] for q in qs]
    m = lambda n, k: np.fromfile(f"{d}/{n}.f32", np.float32).reshape(k, -1)
    e1 = ndcg(m("e1q", len(qs)), m("e1d", nv), rels)
    r = {t: ndcg(np.load(f"{d}/{t}-q.npy"), np.load(f"{d}/{t}-d.npy"), rels) for t in (A, B)}
    miss = e1 < 0.5
    print(f"{name}: E1 below 0.5 on {miss.sum()} of {len(qs)}; on those, {A} {r[A][miss].mean():.4f}, {B} {r[B][miss].mean():.4f}; elsewhere {r[A][~miss].mean():.4f} / {r[B][~miss].mean():.4f}; "
          f"{B}−{A} all {ci(r[B], r[A])}, on E1's misses {ci(r[B][miss], r[A][miss])}")
