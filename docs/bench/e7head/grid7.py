#!/usr/bin/env python3
"""grid-loso.txt: docs/bench/codebase/grid.py's grid (E7 up to 8x) against the shipped code base,
leave one set out. ROOT is laid out as grid.py reads it, with each set's
slots-S/runs/embedder_first_E7.trec replaced by E7 v2's no-threshold run.

    python3 docs/bench/e7head/grid7.py ROOT go,py,js,rust,php
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'codebase'))
from grid import build_grid, load, loso, scores  # noqa: E402

SHIP = {'E1': .22, 'E5': .40, 'E6': .13, 'E7': .20, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}
root, sets = sys.argv[1], sys.argv[2].split(',')
data = {s: load(root, s) for s in sets}
grid = build_grid(data, sets, rs=(0.5, 0.55, 0.6, 0.65, 0.7), e7s=(3, 4, 5, 6, 8))
loso(grid, {s: scores(data[s], SHIP) for s in sets}, sets, 'shipped ')
