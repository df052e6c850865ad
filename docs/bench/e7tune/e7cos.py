"""e7cos.py TREC QRELS: from an E7 run made with --no-thresholds, the E7
cosine of each query's relevant document (percentiles, shares below some
Lows) and nDCG@10 of the run cut at each Low (what a run with that Low
threshold gives)."""
import math, sys

import numpy as np

trec, qrels = sys.argv[1], sys.argv[2]
rel = {}
for l in open(qrels):
    f = l.split("\t")
    if len(f) >= 3 and f[0] != "query-id" and f[2].strip() != "0":
        rel.setdefault(f[0], set()).add(f[1])
runs = {}
for l in open(trec):
    q, _, d, r, s, _ = l.split()
    runs.setdefault(q, []).append((int(r), d, float(s)))
a = np.array([s for q, hits in runs.items() for _, d, s in hits if d in rel.get(q, ())])
print(f"{trec}: {len(runs)} queries, relevant found in top 100 for {len(a)}; cosine pct 1/5/50: "
      f"{np.percentile(a, 1):.3f} / {np.percentile(a, 5):.3f} / {np.percentile(a, 50):.3f}; "
      + ", ".join(f"below {low:.2f} {np.mean(a < low):.3f}" for low in (0.25, 0.30, 0.35)))
for low in [0, 0.25, 0.28, 0.30, 0.32, 0.35]:
    tot = 0
    for q, hits in runs.items():
        kept = [d for _, d, s in sorted(hits) if s >= low][:10]
        r = rel.get(q, set())
        dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(kept) if d in r)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(len(r), 10)))
        tot += dcg / idcg if idcg else 0
    print(f"Low {low:.2f}: nDCG@10 {tot / len(runs):.4f}")
