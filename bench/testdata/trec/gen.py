"""Generate a metric fixture checked against pytrec_eval (trec_eval), which BEIR uses.

Run: pip install pytrec-eval-terrier==0.5.11; python3 gen.py
Writes qrels.tsv (BEIR layout), run.tsv (query, doc, rank, score; best first,
strictly decreasing scores so trec_eval keeps the order) and expected.json
(per query: ndcg@10, recall@10, recall@100, map (map_cut_100) and mrr@10 =
trec_eval recip_rank over the top 10; and the other metric kinds and cutoffs
bench accepts: ndcg@5/@100, recall@5, p@5/@10, map@10, mrr over the whole
ranking). Not run in CI: the Go tests read the files it wrote.

It also writes run-ties.trec, a TREC run (qid Q0 docid rank score tag) of
the same rankings with scores rounded so that many tie, listed in an order
that is not trec_eval's, and expected-ties.json: what pytrec_eval computes
from it (trec_eval sorts by score, then by docid descending), so a TREC run
reader can be checked to rank as trec_eval does.
"""
import json
import random

import pytrec_eval

rng = random.Random(20261122)
qrels, run = {}, {}
for q in range(40):
    qid = f"q{q:02d}"
    docs = [f"d{d:03d}" for d in range(300)]
    judged = rng.sample(docs, rng.randint(1, 25))
    qrels[qid] = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
    if q % 10 == 0:  # some queries with a single relevant doc, CSN-style
        qrels[qid] = {judged[0]: 1}
    ranking = rng.sample(docs, rng.randint(0, 150))
    # Push some relevant docs up so scores are not all zero.
    rel = [d for d, r in qrels[qid].items() if r > 0]
    for d in rel:
        if rng.random() < 0.6:
            if d in ranking:
                ranking.remove(d)
            ranking.insert(rng.randint(0, min(30, len(ranking))), d)
    run[qid] = {d: float(1000 - i) for i, d in enumerate(ranking)}

# Drop queries without a relevant judgement (BEIR evaluates only those).
qrels = {q: j for q, j in qrels.items() if any(r > 0 for r in j.values())}
run = {q: run[q] for q in qrels}

ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10,100", "recall.5,10,100", "map_cut.10,100", "P.5,10", "recip_rank"})
res = ev.evaluate(run)
top10 = {q: dict(sorted(r.items(), key=lambda kv: -kv[1])[:10]) for q, r in run.items()}
rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)

expected = {}
for q in sorted(qrels):
    m = res.get(q, {})
    expected[q] = {
        "ndcg@10": m.get("ndcg_cut_10", 0.0),
        "recall@10": m.get("recall_10", 0.0),
        "recall@100": m.get("recall_100", 0.0),
        "map": m.get("map_cut_100", 0.0),
        "mrr@10": rr.get(q, {}).get("recip_rank", 0.0),
        "ndcg@5": m.get("ndcg_cut_5", 0.0),
        "ndcg@100": m.get("ndcg_cut_100", 0.0),
        "recall@5": m.get("recall_5", 0.0),
        "p@5": m.get("P_5", 0.0),
        "p@10": m.get("P_10", 0.0),
        "map@10": m.get("map_cut_10", 0.0),
        "mrr": m.get("recip_rank", 0.0),
    }

with open("qrels.tsv", "w") as f:
    f.write("query-id\tcorpus-id\tscore\n")
    for q in sorted(qrels):
        for d in sorted(qrels[q]):
            f.write(f"{q}\t{d}\t{qrels[q][d]}\n")
with open("run.tsv", "w") as f:
    for q in sorted(run):
        for i, (d, s) in enumerate(sorted(run[q].items(), key=lambda kv: -kv[1])):
            f.write(f"{q}\t{d}\t{i + 1}\t{s}\n")
with open("expected.json", "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")

# A run whose scores tie a lot, written shuffled: trec_eval's own order
# (score descending, docid descending) must be recovered by a reader.
ties = {}
for q, r in run.items():
    ties[q] = {d: float(round(s / 40)) for d, s in r.items()}
ties_eval = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100", "map_cut.100", "P.5", "recip_rank"}).evaluate(ties)
expected_ties = {}
for q in sorted(qrels):
    m = ties_eval.get(q, {})
    expected_ties[q] = {
        "ndcg@10": m.get("ndcg_cut_10", 0.0),
        "recall@100": m.get("recall_100", 0.0),
        "map": m.get("map_cut_100", 0.0),
        "p@5": m.get("P_5", 0.0),
        "mrr": m.get("recip_rank", 0.0),
    }
with open("run-ties.trec", "w") as f:
    for q in sorted(ties):
        items = list(ties[q].items())
        rng.shuffle(items)
        for i, (d, s) in enumerate(items):
            f.write(f"{q} Q0 {d} {i + 1} {s} ties\n")
with open("expected-ties.json", "w") as f:
    json.dump(expected_ties, f, indent=1, sort_keys=True)
    f.write("\n")
