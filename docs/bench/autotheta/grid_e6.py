#!/usr/bin/env python3
"""grid-e6.txt: the code base grid with E6 down to 0 (its ablation no longer shows it earning
its place) and E7 v2 lists, left one set out over six code sets against the shipped weights.

    python3 docs/bench/autotheta/grid_e6.py ROOT go,py,java,js,rust,php
"""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'codebase'))
from grid import build_grid, load, loso, scores
SHIP = {'E1': .22, 'E5': .40, 'E6': .13, 'E7': .20, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}
root, sets = sys.argv[1], sys.argv[2].split(',')
data = {s: load(root, s) for s in sets}
grid = build_grid(data, sets, rs=(0.6, 0.65, 0.7), e7s=(3, 4, 5), e6s=(0, 0.25, 0.5, 0.75, 1), e10s=(1,))
loso(grid, {s: scores(data[s], SHIP) for s in sets}, sets, 'shipped ')
