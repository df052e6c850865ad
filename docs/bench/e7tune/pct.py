import sys, numpy as np
trec, qrels = sys.argv[1], sys.argv[2]
rel = {}
for l in open(qrels):
    f = l.split("\t")
    if len(f) >= 3 and f[0] != "query-id" and f[2].strip() != "0":
        rel.setdefault(f[0], set()).add(f[1])
sc, qs = [], set()
for l in open(trec):
    q, _, d, r, s, _ = l.split()
    qs.add(q)
    if d in rel.get(q, ()):
        sc.append(float(s))
miss = len(qs) - len(sc)
a = np.array(sc)
print(f"{trec}: {len(qs)} queries, relevant found in top 100 for {len(sc)}; cosine pct 1/5/50: {np.percentile(a,1):.3f} / {np.percentile(a,5):.3f} / {np.percentile(a,50):.3f}; share below 0.25 {np.mean(a<0.25):.3f}, below 0.30 {np.mean(a<0.30):.3f}, below 0.35 {np.mean(a<0.35):.3f}")
