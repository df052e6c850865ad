"""code_search's fusion with E7's list from a both-sides fit (evalsets.py --save TAG):
weighted RRF (K 60) over the slots' top-100 lists of ROOT (docs/bench/codebase/grid.py's
layout: today's lists, 500 queries, seed 1, no thresholds), once with E7's list as it
is and once with E7's top-100 by exact cosine of the fit's vectors, at code_search's
weights and at two to five times E7's weight. Paired bootstrap 95% CI (2,000 resamples,
seed 1). With a second fit (TAG_B) it also prints TAG_B's fused list minus TAG's at each
weight, paired on the same queries. Last, leaving one set out at a time, TAG's fused list
at the multiple of E7's weight (1 to 5) the other five sets gain most with: the figure an
unseen set would see, where the x2 to x5 columns are picked on the set itself.

    python3 scripts/e7tune/fuse.py ROOT SETS_DUMP TAG [TAG_B]
"""
import json, os, random, sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "bench", "codebase"))
import grid
ROOT, DUMP, TAG = sys.argv[1:4]
TAG_B = sys.argv[4] if len(sys.argv) > 4 else ""
CS = {'E1': .351, 'E5': .468, 'E6': .058, 'E7': .094, 'E8': .006, 'E9': .006, 'E10': .012, 'E11': .006}  # code_search today
def ci(d):
    random.seed(1); bs = sorted(grid.mean(random.choices(d, k=len(d))) for _ in range(2000))
    return f"{grid.mean(d):+.4f} [{bs[50]:+.4f}, {bs[1949]:+.4f}]"
MULTS = (1, 2, 3, 4, 5)
SETS = ["go", "py", "java", "js", "rust", "php"]
gain = {}  # (set, multiple) -> per-query fused minus code_search today
for s in SETS:
    data = grid.load(ROOT, s)
    ids = json.load(open(f"{DUMP}/{s}/ids.json"))
    def with_e7(tag):  # data with E7's list replaced by tag's top 100 by exact cosine
        q, d = np.load(f"{DUMP}/{s}/{tag}-q.npy"), np.load(f"{DUMP}/{s}/{tag}-d.npy")
        top = np.argsort(-(q @ d.T), 1)[:, :100]
        runs = dict(data[0]); runs["E7"] = {qid: [ids["docs"][j] for j in top[i]] for i, qid in enumerate(ids["queries"])}
        return (runs, data[1], data[2])
    new = with_e7(TAG)
    new_b = with_e7(TAG_B) if TAG_B else None
    base, alone_a, alone_b = grid.scores(data, CS), grid.scores(data, {"E7": 1}), grid.scores(new, {"E7": 1})
    e1 = grid.scores(data, {"E1": 1})
    out = [f"{s}: E7 alone {grid.mean(alone_a):.4f} → {grid.mean(alone_b):.4f} (E1 {grid.mean(e1):.4f})",
           f"code_search {grid.mean(base):.4f}"]
    for m in MULTS:
        w = dict(CS, E7=CS["E7"] * m)
        f = grid.scores(new, w)
        gain[s, m] = [a - b for a, b in zip(f, base)]
        out.append(f"E7 x{m} {grid.mean(f):.4f} {ci(gain[s, m])}")
        if TAG_B:
            g = grid.scores(new_b, w)
            out.append(f"{TAG_B}−{TAG} {ci([a - b for a, b in zip(g, f)])}")
    print("  ".join(out), flush=True)
out = []
for s in SETS:
    m = max(MULTS, key=lambda m: grid.mean([grid.mean(gain[o, m]) for o in SETS if o != s]))
    out.append(f"{s} x{m} {ci(gain[s, m])}")
print("held out, the multiple the other sets chose: " + "  ".join(out), flush=True)
