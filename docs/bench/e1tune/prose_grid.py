#!/usr/bin/env python3
"""causal_reasoning's weights (auto's prose base) with E1's code-tuned queries.

ROOT holds, in the layout of docs/bench/codebase/grid.py, the per-slot top-100
lists of the three prose sets made with E1's tuned queries: causal (causal-dev,
--direction effects), cother (causal-other, --direction effects) and prose (the
heading → section set). It fuses them by weighted RRF (K 60) over a grid of E1,
E7 and E10 weights (the other slots at causal_reasoning's), leaves one set out
at a time and prints the held-out set's nDCG@10 at the point the other two
chose against causal_reasoning's shipped weights, with a paired bootstrap 95%
CI (2,000 resamples, seed 1).

    python3 docs/bench/e1tune/prose_grid.py ROOT
"""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'codebase'))
import grid
ROOT = sys.argv[1]
SETS = ['causal', 'cother', 'prose']
CR = {'E1': .15, 'E5': .25, 'E6': .20, 'E7': .15, 'E8': .03, 'E9': .01, 'E10': .20, 'E11': .01}
data = {s: grid.load(ROOT, s) for s in SETS}
base = {s: grid.scores(data[s], CR) for s in SETS}
print('causal_reasoning over the lists:', {s: round(grid.mean(base[s]), 4) for s in SETS})
g = {}
for e1 in [.15, .22, .30, .40, .60]:
    for e7 in [.075, .15]:
        for e10 in [.10, .20]:
            w = dict(CR, E1=e1, E7=e7, E10=e10)
            g[(e1, e7, e10)] = {s: grid.scores(data[s], w) for s in SETS}
print('points are (E1, E7, E10)')
grid.loso(g, base, SETS, 'causal_reasoning ')
