#!/usr/bin/env python3
"""code_search's fusion with E5's queries through a code-tuned bge (docs/bench/e5tune/README.md).

OLD and NEW are two roots in the layout of docs/bench/codebase/grid.py (ROOT/sets/S,
ROOT/slots-S/runs/embedder_first_E*.trec, 500 queries, seed 1, no thresholds); OLD holds
today's lists (E1 through its tuned query encoder), NEW differs only in
embedder_first_E5.trec (E5's tuned queries). For each list set it fuses the slots'
top-100 lists by weighted RRF (K 60) over a grid of E1, E5 and E7 weights (the other slots
at code_search's), leaves one set out at a time, and prints the held-out set's nDCG@10 at
the point the other five chose against code_search's shipped weights over OLD's lists,
with a paired bootstrap 95% CI (2,000 resamples, seed 1).

    python3 docs/bench/e5tune/grid.py OLD NEW
"""
import os, random, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'codebase'))
import grid
OLD, NEW = sys.argv[1], sys.argv[2]
SETS = ['go', 'py', 'java', 'js', 'rust', 'php']
CS = {'E1': .46, 'E5': .23, 'E6': .10, 'E7': .16, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}  # shipped code_search
old = {s: grid.load(OLD, s) for s in SETS}
new = {s: grid.load(NEW, s) for s in SETS}
base = {s: grid.scores(old[s], CS) for s in SETS}
for name, data in (("today's E5 lists (reweighting alone)", old), ("tuned E5 lists", new)):
    print(name, "— points are (E1, E5, E7)")
    g = {}
    for e in [.30, .46, .60]:
        for f in [.23, .40, .60, .80, 1.0, 1.3, 1.6]:
            for h in [.08, .16]:
                w = dict(CS, E1=e, E5=f, E7=h)
                g[(e, f, h)] = {s: grid.scores(data[s], w) for s in SETS}
    grid.loso(g, base, SETS, "code_search ")
    # The rule shipped: among the points that lose to code_search on none of
    # the training sets, the best mean (the plain rule above lets one
    # language's gain pay for another's loss).
    print(name, "— chosen among points losing on no training set")
    M = grid.mean
    safe = lambda sets: [k for k in g if min(M(g[k][s]) - M(base[s]) for s in sets) >= 0] or list(g)
    tot = []
    for held in SETS:
        tr = [s for s in SETS if s != held]
        best = max(safe(tr), key=lambda k: M([M(g[k][s]) for s in tr]))
        d = [a - b for a, b in zip(g[best][held], base[held])]
        random.seed(1)
        bs = sorted(M(random.choices(d, k=len(d))) for _ in range(2000))
        tot.append(M(d))
        print(f'{held}: chosen {best}: {M(g[best][held]):.4f} against code_search {M(base[held]):.4f}, '
              f'{M(d):+.4f} [{bs[50]:+.4f}, {bs[1949]:+.4f}]', flush=True)
    best = max(safe(SETS), key=lambda k: M([M(g[k][s]) for s in SETS]))
    print(f'held-out mean {M(tot):+.4f}; on every set: {best}', {s: round(M(g[best][s]) - M(base[s]), 4) for s in SETS})
print("E5 alone (its top-100 list), today's → tuned queries:")
for s in SETS:
    a, b = grid.scores(old[s], {'E5': 1}), grid.scores(new[s], {'E5': 1})
    e1 = grid.scores(new[s], {'E1': 1})
    print(f"{s}: E5 {grid.mean(a):.4f} → {grid.mean(b):.4f} ({grid.mean(b) - grid.mean(a):+.4f}); tuned E1 {grid.mean(e1):.4f}", flush=True)
