#!/usr/bin/env python3
"""code_search's fusion with E1's queries through a code-tuned e5 (docs/bench/e1tune/README.md).

OLD and NEW are two roots in the layout of docs/bench/codebase/grid.py (ROOT/sets/S,
ROOT/slots-S/runs/embedder_first_E*.trec, 500 queries, seed 1); NEW differs from OLD
only in embedder_first_E1.trec (the tuned queries). For each list set it fuses the
slots' top-100 lists by weighted RRF (K 60) over a grid of E1, E5 and E7 weights (the
other slots at code_search's), leaves one set out at a time, and prints the held-out
set's nDCG@10 at the point the other five chose against code_search's shipped weights
over OLD's lists, with a paired bootstrap 95% CI (2,000 resamples, seed 1).

    python3 docs/bench/e1tune/grid.py OLD NEW
"""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'codebase'))
import grid
OLD, NEW = sys.argv[1], sys.argv[2]
SETS = ['go', 'py', 'java', 'js', 'rust', 'php']
CS = {'E1': .22, 'E5': .40, 'E6': .13, 'E7': .20, 'E8': .01, 'E9': .01, 'E10': .02, 'E11': .01}
old = {s: grid.load(OLD, s) for s in SETS}
new = {s: grid.load(NEW, s) for s in SETS}
base = {s: grid.scores(old[s], CS) for s in SETS}
for name, data in (("old E1 lists (reweighting alone)", old), ("tuned E1 lists", new)):
    print(name, "— points are (E1, E5, E7)")
    g = {}
    for e in [.22, .30, .40, .50, .60, .80, 1.0]:
        for f in [.20, .30, .40]:
            for h in [.10, .20]:
                w = dict(CS, E1=e, E5=f, E7=h)
                g[(e, f, h)] = {s: grid.scores(data[s], w) for s in SETS}
    grid.loso(g, base, SETS, "code_search ")
