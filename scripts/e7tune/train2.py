"""Both-sides LoRA fine-tune of MiniLM for E7: one update for queries (mean
pooled, as the engine reads them) and documents (the code view, head pooled
as E7 v2 stores them). Negatives: every training document, from a bank that
starts at the stored raw vectors (e7d) and takes each batch's fresh document
vectors as the fit moves (cross-batch memory); or the batch's fresh documents
only (--neg inbatch), with --hard K one mined hard negative more per pair.
LOLO: train on every language but --hold, test on --hold's held-out pairs,
all re-encoded."""
import argparse, os, json, time, numpy as np, jax, jax.numpy as jnp, optax
import bert
ap = argparse.ArgumentParser()
ap.add_argument("--dump", default="/tmp/cgraph-e7tune/dump"); ap.add_argument("--hold", default="")
ap.add_argument("--rank", type=int, default=16); ap.add_argument("--epochs", type=float, default=1)
ap.add_argument("--lr", type=float, default=3e-4); ap.add_argument("--tau", type=float, default=0.05)
ap.add_argument("--batch", type=int, default=32); ap.add_argument("--dmax", type=int, default=256)
ap.add_argument("--seed", type=int, default=7); ap.add_argument("--out", default="")
ap.add_argument("--langs", default="go,python,java,javascript")
ap.add_argument("--neg", default="bank", choices=["bank", "inbatch"], help="negatives: every training document (bank, stale rows) or the batch's fresh documents only, both directions")
ap.add_argument("--init", default="", help="start from a query-side fit (.npz)")
ap.add_argument("--boost", default="", help="e1ranks.py's folder: weigh each pair by how far E1 ranks its function (floor + (1 - floor)(1 - 1/rank), mean 1), so the fit learns most where E1 misses")
ap.add_argument("--boost-floor", type=float, default=0.25, help="--boost: the weight of a pair E1 ranks first, before the mean is set to 1")
ap.add_argument("--hard", type=int, default=0, help="inbatch: one more negative per pair, drawn each step from the K documents of its language that the starting fit (--init) ranks highest for its query, leaving out the pair's own function and pairs with the same query or document text (ANCE-style, mined once)")
ap.add_argument("--onnx", default=os.path.expanduser("~/.cache/cgraph/models/all-minilm-l6-v2/model.onnx"))
a = ap.parse_args()
M = a.onnx.rsplit("/", 1)[0] + "/"
p, names, nl = bert.load(a.onnx)
tq = bert.tokenizer(M + "tokenizer.json", 64)
td = bert.tokenizer(M + "tokenizer.json", a.dmax)
tq256 = bert.tokenizer(M + "tokenizer.json", 256)
def rd(lang, split):
    ps = [json.loads(l) for l in open(f"{a.dump}/{lang}/{split}/pairs.jsonl")]
    m = lambda n: np.fromfile(f"{a.dump}/{lang}/{split}/{n}.f32", np.float32).reshape(len(ps), -1)
    return [x["qv"] for x in ps], [x["d"] for x in ps], m
trq, trdt, bank, ranks, lang = [], [], [], [], []
for L in a.langs.split(","):
    if L == a.hold: continue
    for sp in ("train", "test"):
        qs, ds, m = rd(L, sp); trq += qs; trdt += ds; bank.append(m("e7d")); lang += [L] * len(qs)
        if a.boost: ranks.append(np.load(f"{a.boost}/{L}-{sp}.npy"))
bank = jnp.asarray(np.concatenate(bank)); N = len(trq)
wt = np.ones(N, np.float32)
if a.boost:
    r = np.concatenate(ranks); assert len(r) == N, (len(r), N)
    wt = (a.boost_floor + (1 - a.boost_floor) * (1 - 1 / r)).astype(np.float32); wt /= wt.mean()
    print(f"boost: E1 ranks first {np.mean(r == 1):.3f} of the pairs; weights {wt.min():.2f}..{wt.max():.2f}", flush=True)
wt = jnp.asarray(wt)
print(f"hold={a.hold or '-'} train pairs {N}", flush=True)
# parity: the raw model's head pooling against the stored vectors
ids, mask = bert.batch_ids(td, trdt[:16], bucket=64)
v = np.asarray(bert.encode(p, jnp.asarray(ids), jnp.asarray(mask), nl, pool="head"))
print("parity cos min", float((v * np.asarray(bank[:16])).sum(1).min()), flush=True)
tg = ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense", "intermediate.dense", "output.dense"]
rng = np.random.default_rng(a.seed)
lora = bert.lora_init(p, nl, tg, a.rank, rng)
if a.init:
    z = np.load(a.init)
    lora = {k: (jnp.asarray(z[k + ".A"]), jnp.asarray(z[k + ".B"])) for k in lora}
def enc(tok, xs, lo, pool, bucket=64):
    f = jax.jit(lambda lo, i, m: bert.encode(p, i, m, nl, lora=lo, pool=pool))
    order = np.argsort([len(x) for x in xs]); out = np.zeros((len(xs), 384), np.float32)
    for i in range(0, len(xs), 32):
        ix = order[i:i + 32]
        ids, mask = bert.batch_ids(tok, [xs[j] for j in ix], bucket=bucket)
        out[ix] = np.asarray(f(lo, jnp.asarray(ids), jnp.asarray(mask)))
    return out
hard = None
if a.hard:
    assert a.neg == "inbatch", "--hard needs --neg inbatch"
    t0 = time.time(); qv, dv = enc(tq, trq, lora, "mean"), enc(td, trdt, lora, "head")
    lang = np.array(lang); hard = np.zeros((N, a.hard), np.int64)
    tq_, td_ = np.unique(trq, return_inverse=True)[1], np.unique(trdt, return_inverse=True)[1]  # text ids
    for L in np.unique(lang):
        ix = np.flatnonzero(lang == L); s_ = qv[ix] @ dv[ix].T
        s_[(tq_[ix][:, None] == tq_[ix][None, :]) | (td_[ix][:, None] == td_[ix][None, :])] = -np.inf  # self, same docstring, same code
        top = np.argsort(-s_, 1)[:, :a.hard]; hard[ix] = ix[top]
        r = (s_ > (qv[ix] * dv[ix]).sum(1)[:, None]).sum(1)
        print(f"hard: {L} {len(ix)} pairs, the starting fit ranks the function first for {np.mean(r == 0):.3f}; "
              f"mean cosine of the K-th negative {np.mean(s_[np.arange(len(ix)), top[:, -1]]):.3f}", flush=True)
    print(f"hard: mined in {time.time() - t0:.0f}s", flush=True)
def loss_fn(lora, bank, qi, qm, di, dm, pos):
    q = bert.encode(p, qi, qm, nl, lora=lora)
    dh = bert.encode(p, di, dm, nl, lora=lora, pool="head")  # the batch's documents, then its hard negatives (--hard)
    d = dh[:q.shape[0]]
    if a.neg == "inbatch":
        lab = jnp.arange(q.shape[0]); w = wt[pos]
        return ((w * optax.softmax_cross_entropy_with_integer_labels(q @ dh.T / a.tau, lab)).mean()
                + (w * optax.softmax_cross_entropy_with_integer_labels(d @ q.T / a.tau, lab)).mean()) / 2, d
    b = bank.at[pos].set(d)
    logits = q @ b.T / a.tau
    return (wt[pos] * optax.softmax_cross_entropy_with_integer_labels(logits, pos)).mean(), d
steps = int(a.epochs * N / a.batch)
opt = optax.adamw(optax.cosine_decay_schedule(a.lr, steps, 0.1), weight_decay=0.0)
st = opt.init(lora)
@jax.jit
def step(lora, st, bank, qi, qm, di, dm, pos):
    (l, d), g = jax.value_and_grad(loss_fn, has_aux=True)(lora, bank, qi, qm, di, dm, pos)
    u, st = opt.update(g, st, lora)
    return optax.apply_updates(lora, u), st, bank.at[pos].set(jax.lax.stop_gradient(d)), l
order = np.concatenate([rng.permutation(N) for _ in range(int(np.ceil(a.epochs)) + 1)])
t0 = time.time(); run = 0
for s in range(steps):
    idx = order[s * a.batch:(s + 1) * a.batch]
    qi, qm = bert.batch_ids(tq, [trq[i] for i in idx], bucket=64)
    hx = [] if hard is None else list(hard[idx, rng.integers(0, a.hard, len(idx))])
    di, dm = bert.batch_ids(td, [trdt[i] for i in list(idx) + hx], bucket=64)
    lora, st, bank, l = step(lora, st, bank, jnp.asarray(qi), jnp.asarray(qm), jnp.asarray(di), jnp.asarray(dm), jnp.asarray(idx))
    run = 0.98 * run + 0.02 * float(l) if s else float(l)
    if s % 20 == 0 or s == steps - 1:
        print(f"step {s}/{steps} loss {run:.3f} {time.time()-t0:.0f}s", flush=True)
if a.out:
    np.savez(a.out, **{k + ".A": np.asarray(v[0]) for k, v in lora.items()}, **{k + ".B": np.asarray(v[1]) for k, v in lora.items()})
def ndcg(q, d):
    s = q @ d.T
    r = (s > np.diag(s)[:, None]).sum(1)
    return np.where(r < 10, 1 / np.log2(r + 2), 0.0)
def ci(x, y):
    r = np.random.default_rng(1); n = len(x); dd = x - y
    ms = np.sort([dd[r.integers(0, n, n)].mean() for _ in range(2000)])
    return f"{dd.mean():+.3f} [{ms[50]:+.3f}, {ms[1949]:+.3f}]"
if a.hold:
    qs, ds, m = rd(a.hold, "test")
    e1 = ndcg(m("e1qv"), m("e1d")); raw = ndcg(m("e7qv"), m("e7d"))
    tq_ = enc(tq256, qs, lora, "mean"); td_ = enc(tq256, ds, lora, "head")
    both = ndcg(tq_, td_); qonly = ndcg(tq_, m("e7d"))
    print(f"LOLO {a.hold}: E1(raw) {e1.mean():.3f} E7 raw {raw.mean():.3f} both-tuned {both.mean():.3f} "
          f"(tuned queries on raw docs {qonly.mean():.3f}) both-raw {ci(both, raw)} both-E1raw {ci(both, e1)}", flush=True)
