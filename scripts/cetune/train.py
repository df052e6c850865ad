"""Pair scorers for code search, trained here (ce.py): a plain cross-encoder
("ce") or a joint encoder that starts as the bi-encoder ("gated"), both on
MiniLM (all-MiniLM-L6-v2, the ONNX graph cgraph runs) with a rank-R LoRA of
every weight matrix (cgraph's low-rank format could carry it).

Data: TestE7Dump's mined doc-comment → function pairs (same trees, seed and
split as every E7/E1/E5 fit). Each training query is scored against a group
of its function, --hard functions drawn from the 10 its language's raw E7
ranks highest (same docstring or same code left out) and --rand random ones
of its language; listwise softmax loss over the group.

LOLO: train on every language but --hold; on --hold's held-out pairs rerank
E1's top --k (raw e5 queries as the engine reads them, stored documents) and
report nDCG@10 of E1, of the scorer alone over E1's top k, and of weighted
RRF(E1, scorer), with paired bootstrap CIs against E1. An offline
measurement (issue 32: "a signal whose errors differ from E1's"); nothing
here is shipped."""
import argparse, json, os, sys, time, numpy as np, jax, jax.numpy as jnp, optax
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e7tune"))
import ce as cemod
from setmetrics import ci

ap = argparse.ArgumentParser()
ap.add_argument("--dump", default="/tmp/cgraph-e7tune/dump"); ap.add_argument("--hold", default="go")
ap.add_argument("--langs", default="go,python,java,javascript")
ap.add_argument("--rank", type=int, default=16); ap.add_argument("--steps", type=int, default=500)
ap.add_argument("--batch", type=int, default=8, help="queries per step")
ap.add_argument("--hard", type=int, default=2); ap.add_argument("--rand", type=int, default=1)
ap.add_argument("--maxlen", type=int, default=128, help="tokens of query and code together (longest first truncated)")
ap.add_argument("--arch", default="gated", choices=["ce", "gated"])
ap.add_argument("--gate", type=float, default=-6.0, help="gated: the starting gate (attention logit added between query and code)")
ap.add_argument("--fast-lr", type=float, default=0.05, help="learning rate of the gate (gated) or the head (ce)")
ap.add_argument("--lr", type=float, default=5e-4); ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--k", type=int, default=20, help="E1's top k reranked at evaluation")
ap.add_argument("--closed", action="store_true", help="gated, with --init and --steps 0: shut every gate (the fit's bi-encoder)")
ap.add_argument("--out", default=""); ap.add_argument("--init", default="", help="evaluate (or continue) this fit (.npz)")
ap.add_argument("--onnx", default=os.path.expanduser("~/.cache/cgraph/models/all-minilm-l6-v2/model.onnx"))
a = ap.parse_args()
S = cemod.Scorer(a.onnx, a.arch, a.maxlen)


def rd(lang, split):
    ps = [json.loads(l) for l in open(f"{a.dump}/{lang}/{split}/pairs.jsonl")]
    m = lambda n: np.fromfile(f"{a.dump}/{lang}/{split}/{n}.f32", np.float32).reshape(len(ps), -1)
    return [x["qv"] for x in ps], [x["d"] for x in ps], m


# training pairs and their mined negatives, per language
Q, D, hardpool, langrows = [], [], [], []
for L in a.langs.split(","):
    if L == a.hold:
        continue
    qs, ds, vq, vd = [], [], [], []
    for sp in ("train", "test"):
        q, d, m = rd(L, sp); qs += q; ds += d; vq.append(m("e7q")); vd.append(m("e7d"))
    vq, vd = np.concatenate(vq), np.concatenate(vd)
    s = vq @ vd.T
    tq_, td_ = np.unique(qs, return_inverse=True)[1], np.unique(ds, return_inverse=True)[1]
    s[(tq_[:, None] == tq_[None, :]) | (td_[:, None] == td_[None, :])] = -np.inf
    off = len(Q)
    hardpool.append(off + np.argsort(-s, 1)[:, :10]); langrows += [np.arange(off, off + len(qs))] * len(qs)
    Q += qs; D += ds
hardpool = np.concatenate(hardpool); N = len(Q)
G = 1 + a.hard + a.rand
print(f"hold={a.hold} train pairs {N}, group {G}, {a.steps} steps of {a.batch} queries", flush=True)

rng = np.random.default_rng(a.seed)
params = S.init(rng, a.rank, a.gate)
if a.init:
    params = S.load(a.init)
if a.closed:
    if a.arch != "gated":
        ap.error("--closed shuts the gates of --arch gated; a plain cross-encoder has none")
    params["gate"] = jnp.full_like(params["gate"], -1e9)


def loss_fn(params, *x):
    s = S.score(params, *x).reshape(-1, G)
    return optax.softmax_cross_entropy_with_integer_labels(s, jnp.zeros(s.shape[0], jnp.int32)).mean()


sched = lambda lr: optax.warmup_cosine_decay_schedule(0.0, lr, min(50, a.steps // 10 + 1), max(a.steps, 2), lr * 0.1)
opt = optax.multi_transform({"main": optax.adam(sched(a.lr)), "fast": optax.adam(sched(a.fast_lr))},
                            lambda ps: {k: jax.tree_util.tree_map(lambda _: "main" if k == "lora" else "fast", v) for k, v in ps.items()})
st = opt.init(params)


@jax.jit
def step(params, st, *x):
    l, g = jax.value_and_grad(loss_fn)(params, *x)
    u, st = opt.update(g, st, params)
    return optax.apply_updates(params, u), st, l


order = np.concatenate([rng.permutation(N) for _ in range(a.steps * a.batch // N + 1)])
t0 = time.time(); run = 0.0; ntok = 0
for s_ in range(a.steps):
    qs, ds = [], []
    for i in order[s_ * a.batch:(s_ + 1) * a.batch]:
        negs = list(rng.choice(hardpool[i], a.hard, replace=False))
        pool = langrows[i]
        while len(negs) < a.hard + a.rand:
            j = int(rng.choice(pool))
            if j != i and D[j] != D[i]:
                negs.append(j)
        for j in [i] + negs:
            qs.append(Q[i]); ds.append(D[j])
    x = S.batch(qs, ds); ntok += int(x[0].size)
    params, st, l = step(params, st, *x)
    run = 0.98 * run + 0.02 * float(l) if s_ else float(l)
    if s_ % 20 == 0 or s_ == a.steps - 1:
        gs = f" gate {float(params['gate'].mean()):+.2f} [{float(params['gate'].min()):+.2f}, {float(params['gate'].max()):+.2f}]" if "gate" in params else ""
        print(f"step {s_}/{a.steps} loss {run:.3f} (chance {np.log(G):.3f}){gs} {time.time() - t0:.0f}s {ntok / max(time.time() - t0, 1e-9):.0f} tok/s", flush=True)
if a.out:
    S.save(a.out, params)


def ndcg_at(rank):  # rank of the one relevant document, 0-based; inf when outside
    return np.where(rank < 10, 1 / np.log2(rank + 2), 0.0)


if a.hold:
    qs, ds, m = rd(a.hold, "test")
    s = m("e1qv") @ m("e1d").T
    top = np.argsort(-s, 1)[:, :a.k]
    r_e1 = (s > np.diag(s)[:, None]).sum(1)
    t1 = time.time()
    cs = S.scores(params, [(qs[i], ds[j]) for i in range(len(qs)) for j in top[i]]).reshape(len(qs), a.k)
    print(f"scored {len(qs) * a.k} pairs in {time.time() - t1:.0f}s", flush=True)
    e1 = ndcg_at(r_e1)
    inside = (top == np.arange(len(qs))[:, None])
    ce_rank = np.argsort(np.argsort(-cs, 1), 1)  # 0-based CE rank of each of the k
    def fused(w):
        f = 1 / (60 + np.arange(a.k))[None, :] + w / (60 + ce_rank)
        fr = np.argsort(np.argsort(-f, 1), 1)
        return np.where(inside.any(1), ndcg_at(np.where(inside, fr, 10**6).min(1)), 0.0)
    ce = np.where(inside.any(1), ndcg_at(np.where(inside, ce_rank, 10**6).min(1)), 0.0)
    print(f"LOLO {a.hold}: {len(qs)} queries, E1 nDCG@10 {e1.mean():.4f}, E1 recall@{a.k} {inside.any(1).mean():.3f}", flush=True)
    print(f"  CE alone over E1's top {a.k}: {ce.mean():.4f}  CE−E1 {ci(ce, e1)}", flush=True)
    for w in (0.5, 1.0, 2.0, 4.0):
        f = fused(w)
        print(f"  RRF(E1, CE×{w}): {f.mean():.4f}  −E1 {ci(f, e1)}", flush=True)
