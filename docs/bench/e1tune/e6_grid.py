#!/usr/bin/env python3
"""E6's and E5's weights in the new code_search, with E1's tuned queries (eighteenth session).

ROOT is a per-slot list root in the layout of docs/bench/codebase/grid.py whose
embedder_first_E1.trec lists were made with the tuned queries (the other slots'
lists as before). Leaves one code set out at a time and prints the held-out
nDCG@10 at the (E6, E5) point the other five chose against the shipped
code_search weights, with a paired bootstrap 95% CI.

    python3 docs/bench/e1tune/e6_grid.py ROOT
"""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'codebase'))
import grid
ROOT = sys.argv[1]
SETS = ['go', 'py', 'java', 'js', 'rust', 'php']
CS = {'E1': .46, 'E5': .23, 'E6': .10, 'E7': .16, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}
data = {s: grid.load(ROOT, s) for s in SETS}
base = {s: grid.scores(data[s], CS) for s in SETS}
g = {}
for e6 in [0, .03, .05, .10, .15]:
    for e5 in [.15, .23, .30]:
        g[(e6, e5)] = {s: grid.scores(data[s], dict(CS, E6=e6, E5=e5)) for s in SETS}
print('points are (E6, E5); base = shipped code_search')
grid.loso(g, base, SETS, 'code_search ')
