"""E7 alone on bench sets, exact cosine, the bench's 500-query sample: the
both-sides fit (--npz) against E1 (tuned queries, stored documents) and E7 as
shipped (tuned queries, raw head-pooled documents), from the vectors
TestE7SetDump wrote
(embedders/neural/e7setdump_test.go). Paired bootstrap 95% CIs."""
import argparse, json, os, numpy as np, jax.numpy as jnp
import bert
from setmetrics import ci, ndcg
ap = argparse.ArgumentParser()
ap.add_argument("--sets", default="/tmp/e7sets", help="TestE7SetDump's $CGRAPH_E7_SETDUMP"); ap.add_argument("--npz", default="", help="the fit to measure; without it, only E1 against E7 as shipped")
ap.add_argument("--names", default="go,py,java,js,rust,php")
ap.add_argument("--save", default="", help="write the fit's vectors as <set>/SAVE-q.npy and SAVE-d.npy (for fuse.py)")
ap.add_argument("--onnx", default=os.path.expanduser("~/.cache/cgraph/models/all-minilm-l6-v2/model.onnx"))
a = ap.parse_args()
p, _, nl = bert.load(a.onnx)
tok = bert.tokenizer(a.onnx.rsplit("/", 1)[0] + "/tokenizer.json", 256)
z = np.load(a.npz) if a.npz else None; lora = None if z is None else {k[:-2]: (jnp.asarray(z[k]), jnp.asarray(z[k[:-2] + ".B"])) for k in z.files if k.endswith(".A")}
def enc(xs, pool):
    order = np.argsort([len(x) for x in xs]); out = np.zeros((len(xs), 384), np.float32)
    for i in range(0, len(xs), 32):
        ix = order[i:i + 32]
        ids, mask = bert.batch_ids(tok, [xs[j] for j in ix], bucket=32)
        out[ix] = np.asarray(bert.encode(p, jnp.asarray(ids), jnp.asarray(mask), nl, lora=lora, pool=pool))
    return out
tot = {}
for name in a.names.split(","):
    d = f"{a.sets}/{name}"
    views = [json.loads(l) for l in open(d + "/views.jsonl")]
    qs = [json.loads(l) for l in open(d + "/queries.jsonl")]
    rels = [q["rel"] for q in qs]
    m = lambda n, k: np.fromfile(f"{d}/{n}.f32", np.float32).reshape(k, -1)
    e1 = ndcg(m("e1q", len(qs)), m("e1d", len(views)), rels)
    e7 = ndcg(m("e7q", len(qs)), m("e7d", len(views)), rels)
    if lora is None:
        print(f"{name}: E1 {e1.mean():.4f}  E7 shipped {e7.mean():.4f}  E7−E1 {ci(e7, e1)}", flush=True); continue
    bq, bd = enc([q["qv"] for q in qs], "mean"), enc(views, "head")
    both = ndcg(bq, bd, rels)
    if a.save:
        np.save(f"{d}/{a.save}-q.npy", bq); np.save(f"{d}/{a.save}-d.npy", bd)
    print(f"{name}: E1 {e1.mean():.4f}  E7 shipped {e7.mean():.4f}  E7 both {both.mean():.4f}  "
          f"both−E1 {ci(both, e1)}  both−shipped {ci(both, e7)}", flush=True)
