"""Where raw E1 (e5-small-v2, queries as the engine reads them, stored
documents) ranks each mined pair's function among its language's train and
test functions: the per-pair difficulty that train2.py --boost weights by, so
that a fit for E7 learns most from the pairs E1 misses (a complementary space
for the fusion, after DrBoost, Lewis et al. 2021). Writes OUT/LANG-SPLIT.npy
(int32 ranks, 1 = E1's first).

Needs TestE7Dump's folder with E1's document vectors for both splits
(train/e1d.f32 is written since the eighteenth session)."""
import argparse, json, os, numpy as np, jax.numpy as jnp
import bert
ap = argparse.ArgumentParser()
ap.add_argument("--dump", default="/tmp/cgraph-e7tune/dump"); ap.add_argument("--out", required=True)
ap.add_argument("--langs", default="go,python,java,javascript")
ap.add_argument("--onnx", default=os.path.expanduser("~/.cache/cgraph/models/e5-small-v2/model.onnx"))
a = ap.parse_args()
p, _, nl = bert.load(a.onnx)
tok = bert.tokenizer(a.onnx.rsplit("/", 1)[0] + "/tokenizer.json", 64)
os.makedirs(a.out, exist_ok=True)
for L in a.langs.split(","):
    qs, ds, n = [], [], []
    for sp in ("train", "test"):
        ps = [json.loads(l) for l in open(f"{a.dump}/{L}/{sp}/pairs.jsonl")]
        qs += ["query: " + x["qv"] for x in ps]; n.append(len(ps))
        ds.append(np.fromfile(f"{a.dump}/{L}/{sp}/e1d.f32", np.float32).reshape(len(ps), -1))
    d = np.concatenate(ds)
    q = np.concatenate([np.asarray(bert.encode(p, *map(jnp.asarray, bert.batch_ids(tok, qs[i:i + 64], bucket=16)), nl))
                        for i in range(0, len(qs), 64)])
    qv = np.fromfile(f"{a.dump}/{L}/test/e1qv.f32", np.float32).reshape(n[1], -1)  # the engine's own E1 queries
    print(f"{L}: parity with the engine's query vectors, cosine min {(q[n[0]:] * qv).sum(1).min():.5f}", flush=True)
    s = q @ d.T
    r = (s > np.diag(s)[:, None]).sum(1).astype(np.int32) + 1
    np.save(f"{a.out}/{L}-train.npy", r[:n[0]]); np.save(f"{a.out}/{L}-test.npy", r[n[0]:])
    print(f"{L}: {len(r)} pairs, E1 first {np.mean(r == 1):.3f}, top 10 {np.mean(r <= 10):.3f}, MRR {np.mean(1 / r):.3f}", flush=True)
