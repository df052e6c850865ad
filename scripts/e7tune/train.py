"""Query-side LoRA fine-tune of MiniLM for E7 (or, --docs e1, of e5-small-v2 for E1; --docs e5, of
bge-small-en-v1.5 for E5: CLS pooling, and E5's direction head on both sides — the query as its
cause view, the documents as their stored effect vectors, as a code search's forward probe reads them),
documents frozen (their stored vectors).
LOLO: train on every language but --hold, test on --hold's held-out pairs."""
import argparse, os, json, time, numpy as np, jax, jax.numpy as jnp, optax
import bert
ap = argparse.ArgumentParser()
ap.add_argument("--dump", default="/tmp/e7dump"); ap.add_argument("--hold", default="")
ap.add_argument("--rank", type=int, default=16); ap.add_argument("--epochs", type=float, default=1)
ap.add_argument("--lr", type=float, default=3e-4); ap.add_argument("--tau", type=float, default=0.05)
ap.add_argument("--batch", type=int, default=32); ap.add_argument("--qmax", type=int, default=64)
ap.add_argument("--targets", default="qkvo,ffn"); ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--out", default=""); ap.add_argument("--langs", default="go,python,java,javascript")
ap.add_argument("--docs", default="e7", choices=["e7", "e1", "e5"], help="whose stored document vectors the queries are fitted to: e7 (MiniLM, E7), e1 (e5-small-v2, E1) or e5 (bge-small-en-v1.5 through e5head.json, E5)")
ap.add_argument("--head", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "embedders", "neural", "e5head.json"), help="E5's direction head (--docs e5)")
ap.add_argument("--qprefix", default="", help="the model's query prefix, e.g. 'query: ' for e5")
ap.add_argument("--onnx", default=os.path.join(os.environ.get("CGRAPH_MODELS") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgraph", "models"), "all-minilm-l6-v2", "model.onnx"))
a = ap.parse_args()
pool = "cls" if a.docs == "e5" else "mean"
if a.docs == "e5":  # shiftHead.apply: x − mu + sign·beta/2·d, unit length; queries side A (−1), documents side B (+1)
    _h = json.load(open(a.head))
    _mu, _d, _beta = np.asarray(_h["mu"], np.float32), np.asarray(_h["d"], np.float32), float(_h["beta"])
    def side(x, sign):
        y = x - _mu + sign * _beta / 2 * _d
        return y / jnp.linalg.norm(y, axis=-1, keepdims=True)
else:
    def side(x, sign):
        return x
M = a.onnx.rsplit("/", 1)[0] + "/"
p, names, nl = bert.load(a.onnx)
tok = bert.tokenizer(M + "tokenizer.json", a.qmax)
tok_eval = bert.tokenizer(M + "tokenizer.json", 256)
langs = a.langs.split(",")
def rd(lang, split):
    qs = [a.qprefix + json.loads(l)["qv"] for l in open(f"{a.dump}/{lang}/{split}/pairs.jsonl")]  # queries as the engine reads them
    m = lambda n: np.fromfile(f"{a.dump}/{lang}/{split}/{n}.f32", np.float32).reshape(len(qs), -1)
    return qs, m
trq, trd = [], []
for L in langs:
    if L == a.hold: continue
    for sp in ("train", "test"):
        qs, m = rd(L, sp); trq += qs; trd.append(m(a.docs + "d"))
trd = side(jnp.asarray(np.concatenate(trd)), +1)
N = len(trq)
print(f"hold={a.hold or '-'} train pairs {N}", flush=True)
tg = []
if "qkvo" in a.targets: tg += ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"]
if "ffn" in a.targets: tg += ["intermediate.dense", "output.dense"]
rng = np.random.default_rng(a.seed)
lora = bert.lora_init(p, nl, tg, a.rank, rng)
scale = 1.0
def loss_fn(lora, ids, mask, pos):
    q = side(bert.encode(p, ids, mask, nl, lora=lora, scale=scale, pool=pool), -1)
    logits = q @ trd.T / a.tau
    return optax.softmax_cross_entropy_with_integer_labels(logits, pos).mean()
steps = int(a.epochs * N / a.batch)
sched = optax.cosine_decay_schedule(a.lr, steps, 0.1)
opt = optax.adamw(sched, weight_decay=0.0)
st = opt.init(lora)
@jax.jit
def step(lora, st, ids, mask, pos):
    l, g = jax.value_and_grad(loss_fn)(lora, ids, mask, pos)
    u, st = opt.update(g, st, lora)
    return optax.apply_updates(lora, u), st, l
order = np.concatenate([rng.permutation(N) for _ in range(int(np.ceil(a.epochs)) + 1)])
t0 = time.time(); run = 0
for s in range(steps):
    idx = order[s * a.batch:(s + 1) * a.batch]
    ids, mask = bert.batch_ids(tok, [trq[i] for i in idx], bucket=16)
    lora, st, l = step(lora, st, jnp.asarray(ids), jnp.asarray(mask), jnp.asarray(idx))
    run = 0.98 * run + 0.02 * float(l) if s else float(l)
    if s % 50 == 0 or s == steps - 1:
        print(f"step {s}/{steps} loss {run:.3f} {time.time()-t0:.0f}s", flush=True)
def enc(qs, lo):
    out = []
    for i in range(0, len(qs), 64):
        ids, mask = bert.batch_ids(tok_eval, qs[i:i + 64], bucket=32)
        out.append(np.asarray(side(bert.encode(p, jnp.asarray(ids), jnp.asarray(mask), nl, lora=lo, scale=scale, pool=pool), -1)))
    return np.concatenate(out)
def ndcg(q, d):
    s = q @ d.T
    r = (s > np.diag(s)[:, None]).sum(1)  # rank of the true doc, 0-based
    return np.where(r < 10, 1 / np.log2(r + 2), 0.0)
def ci(x, y):
    r = np.random.default_rng(1); n = len(x); dd = x - y
    ms = np.sort([dd[r.integers(0, n, n)].mean() for _ in range(2000)])
    return ms[50], ms[1949]
if a.out:
    np.savez(a.out, **{k + ".A": np.asarray(v[0]) for k, v in lora.items()}, **{k + ".B": np.asarray(v[1]) for k, v in lora.items()})
if a.hold:
    qs, m = rd(a.hold, "test")
    d7, e1 = np.asarray(side(m(a.docs + "d"), +1)), ndcg(m("e1qv"), m("e1d"))
    raw = ndcg(np.asarray(side(m(a.docs + "qv"), -1)), d7)
    tuned = ndcg(enc(qs, lora), d7)
    print(f"LOLO {a.hold}: E1 {e1.mean():.3f} raw {raw.mean():.3f} tuned {tuned.mean():.3f} "
          f"tuned-raw [{ci(tuned, raw)[0]:+.3f}, {ci(tuned, raw)[1]:+.3f}] tuned-E1 {tuned.mean()-e1.mean():+.3f} [{ci(tuned, e1)[0]:+.3f}, {ci(tuned, e1)[1]:+.3f}]", flush=True)
