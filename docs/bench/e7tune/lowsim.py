import sys, math
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
for low in [0, 0.25, 0.28, 0.30, 0.32, 0.35]:
    tot = 0
    for q, hits in runs.items():
        hits.sort()
        kept = [d for _, d, s in hits if s >= low][:10]
        r = rel.get(q, set())
        dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(kept) if d in r)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(len(r), 10)))
        tot += dcg / idcg if idcg else 0
    print(f"Low {low:.2f}: nDCG@10 {tot / len(runs):.4f}")
