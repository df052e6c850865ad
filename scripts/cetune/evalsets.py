"""A pair scorer (train.py's --out, ce.py) on bench sets, outside the engine: it
rescores the top --k of a first ranking and is fused with that ranking by
weighted RRF (k=60). First rankings: E1 alone (exact cosine of its tuned
queries and stored documents, from TestE7SetDump's vectors) and any TREC run
the bench wrote (`bench run --run-out DIR --k K`; --run NAME=FILE). Paired
bootstrap 95% CIs against the first ranking; the bench's 500-query sample
(seed 1) as TestE7SetDump wrote it. Nothing here is shipped."""
import argparse, json, os, sys, time, numpy as np, jax, jax.numpy as jnp
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e7tune"))
import ce as cemod
from setmetrics import ci, ndcg_list as ndcg

ap = argparse.ArgumentParser()
ap.add_argument("--sets", default="/tmp/e7sets", help="TestE7SetDump's $CGRAPH_E7_SETDUMP")
ap.add_argument("--set", required=True, help="the set's folder name under --sets")
ap.add_argument("--npz", required=True); ap.add_argument("--k", type=int, default=20)
ap.add_argument("--run", action="append", default=[], help="NAME=TREC run file of the same set and sample")
ap.add_argument("--maxlen", type=int, default=128); ap.add_argument("--arch", default="gated", choices=["ce", "gated"])
ap.add_argument("--closed", action="store_true", help="gated: shut every gate (query and code encoded apart by the fitted weights: the fit's bi-encoder)")
ap.add_argument("--cache", default="", help="keep the scorer's scores here (.npz) and reuse them")
ap.add_argument("--onnx", default=os.path.expanduser("~/.cache/cgraph/models/all-minilm-l6-v2/model.onnx"))
a = ap.parse_args()
S = cemod.Scorer(a.onnx, a.arch, a.maxlen)
params = S.load(a.npz)
if a.closed:
    if a.arch != "gated":
        ap.error("--closed shuts the gates of --arch gated; a plain cross-encoder has none")
    params["gate"] = jnp.full_like(params["gate"], -1e9)


d = f"{a.sets}/{a.set}"
views = [json.loads(l) for l in open(d + "/views.jsonl")]
qs = [json.loads(l) for l in open(d + "/queries.jsonl")]
ids = json.load(open(d + "/ids.json")); row = {x: i for i, x in enumerate(ids["docs"])}
qrow = {x: i for i, x in enumerate(ids["queries"])}
m = lambda n, k: np.fromfile(f"{d}/{n}.f32", np.float32).reshape(k, -1)
first = {"E1": np.argsort(-(m("e1q", len(qs)) @ m("e1d", len(views)).T), 1)[:, :max(a.k, 10)]}
for spec in a.run:
    name, path = spec.split("=", 1)
    lists = [[] for _ in qs]
    for line in open(path):
        f = line.split()
        if f[0] in qrow:
            lists[qrow[f[0]]].append((int(f[3]), row[f[2]]))
    first[name] = [[j for _, j in sorted(l)] for l in lists]
cache = dict(np.load(a.cache)) if a.cache and os.path.exists(a.cache) else {}
want = sorted({(i, j) for top in first.values() for i, t in enumerate(top) for j in t[:a.k]} - {tuple(x) for x in cache.get("pairs", np.zeros((0, 2), int))})
if want:
    t0 = time.time()
    s = S.scores(params, [(qs[i]["qv"], views[j]) for i, j in want])
    print(f"{a.set}: scored {len(want)} pairs in {time.time() - t0:.0f}s", flush=True)
    cache = {"pairs": np.concatenate([cache.get("pairs", np.zeros((0, 2), int)), np.array(want)]), "scores": np.concatenate([cache.get("scores", np.zeros(0, np.float32)), s])}
    if a.cache:
        np.savez(a.cache, **cache)
cs = {tuple(x): s for x, s in zip(cache["pairs"], cache["scores"])}
for name, top in first.items():
    base = np.array([ndcg(list(t), q["rel"]) for t, q in zip(top, qs)])
    rec = np.mean([bool(set(t[:a.k]) & set(q["rel"])) for t, q in zip(top, qs)])
    print(f"{a.set} {name}: nDCG@10 {base.mean():.4f}, recall@{a.k} {rec:.3f}", flush=True)
    ce = []
    fused = {w: [] for w in (0.25, 0.5, 1.0, 2.0)}
    for i, t in enumerate(top):
        t = list(t[:a.k]); s = np.array([cs[(i, j)] for j in t])
        cr = np.argsort(np.argsort(-s))
        ce.append(ndcg([t[j] for j in np.argsort(-s)] + list(top[i][a.k:]), qs[i]["rel"]))
        for w in fused:
            f = 1 / (60 + np.arange(len(t))) + w / (60 + cr)
            fused[w].append(ndcg([t[j] for j in np.argsort(-f, kind="stable")] + list(top[i][a.k:]), qs[i]["rel"]))
    ce = np.array(ce)
    print(f"  CE alone over its top {a.k}: {ce.mean():.4f}  −{name} {ci(ce, base)}", flush=True)
    for w, f in fused.items():
        f = np.array(f)
        print(f"  RRF({name}, CE×{w}): {f.mean():.4f}  −{name} {ci(f, base)}", flush=True)
