#!/usr/bin/env python3
"""grid-loso.txt: docs/bench/codebase/grid.py's grid (E7 up to 8x) against the shipped code base,
leave one set out. ROOT is laid out as grid.py reads it, with each set's
slots-S/runs/embedder_first_E7.trec replaced by E7 v2's no-threshold run.

    python3 docs/bench/e7head/grid7.py ROOT go,py,js,rust,php
"""
import sys, random
sys.path.insert(0, __import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'codebase'))
from grid import load, scores, mean, OLD
SHIP = {'E1': .22, 'E5': .40, 'E6': .13, 'E7': .20, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}
root, sets = sys.argv[1], sys.argv[2].split(',')
data = {s: load(root, s) for s in sets}
grid = {}
for r in [0.5, 0.55, 0.6, 0.65, 0.7]:
    for e7 in [3, 4, 5, 6, 8]:
        for e6 in [0.75, 1, 1.25]:
            for e10 in [1, 2]:
                w = dict(OLD)
                tot = OLD['E1'] + OLD['E5']
                w.update(E1=tot * (1 - r), E5=tot * r, E7=OLD['E7'] * e7, E6=OLD['E6'] * e6, E10=OLD['E10'] * e10)
                grid[(r, e7, e6, e10)] = {s: scores(data[s], w) for s in sets}
base = {s: scores(data[s], SHIP) for s in sets}
for held in sets:
    train = [s for s in sets if s != held]
    best = max(grid, key=lambda k: mean([mean(grid[k][s]) for s in train]))
    d = [a - b for a, b in zip(grid[best][held], base[held])]
    random.seed(1)
    bs = sorted(mean(random.choices(d, k=len(d))) for _ in range(2000))
    print(f'{held}: chosen {best}: {mean(grid[best][held]):.4f} against shipped {mean(base[held]):.4f}, {mean(d):+.4f} [{bs[50]:+.4f}, {bs[1949]:+.4f}]', flush=True)
best = max(grid, key=lambda k: mean([mean(grid[k][s]) for s in sets]))
print('on every set:', best, {s: round(mean(grid[best][s]), 4) for s in sets})
