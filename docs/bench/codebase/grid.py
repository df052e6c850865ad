#!/usr/bin/env python3
"""The code-base grid of docs/PROFILES.md "Code bases refitted on six languages".

Reads, for each set name S given, ROOT/sets/S (bench prepare's layout:
qrels/test.tsv) and ROOT/slots-S/runs/embedder_first_E*.trec (bench run
--modes embedder_first --embedders E1,E5,E6,E7,E8,E9,E10,E11 --no-thresholds
--max-queries 500 --seed 1 --run-out ROOT/slots-S/runs), fuses the slots'
top-100 lists by weighted RRF (K 60, ranks from 0, as pipeline.WRRF) for each
grid point and prints, leaving one set out at a time, the held-out set's
nDCG@10 with the point the other sets chose against the shipped base, with a
paired bootstrap 95% CI (2,000 resamples, seed 1).

    python3 docs/bench/codebase/grid.py ROOT go,py,java,js,rust,php
"""
import math
import os
import random
import sys

SLOTS = ['E1', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10', 'E11']
OLD = {'E1': .45, 'E5': .28, 'E6': .15, 'E7': .06, 'E8': .01, 'E9': .01, 'E10': .03, 'E11': .01}


def load(root, s):
    runs = {}
    for sl in SLOTS:
        lists = {}
        for line in open(os.path.join(root, f'slots-{s}', 'runs', f'embedder_first_{sl}.trec')):
            q, _, doc, rank, _, _ = line.split()
            lists.setdefault(q, []).append((int(rank), doc))
        runs[sl] = {q: [d for _, d in sorted(v)] for q, v in lists.items()}
    qrels = {}
    for line in open(os.path.join(root, 'sets', s, 'qrels', 'test.tsv')):
        p = line.split()
        if p[0] in ('query-id', 'query_id'):
            continue
        qrels.setdefault(p[0], {})[p[1]] = int(p[2])
    qs = sorted(set().union(*[set(r) for r in runs.values()]))
    return runs, qrels, qs


def ndcg(ranked, rel):
    dcg = sum((2 ** rel.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0


def scores(data, w):
    runs, qrels, qs = data
    out = []
    for q in qs:
        sc = {}
        for sl, ws in w.items():
            for r, d in enumerate(runs[sl].get(q, [])[:100]):
                sc[d] = sc.get(d, 0) + ws / (60 + r)
        ranked = [d for d, _ in sorted(sc.items(), key=lambda x: (-x[1], x[0]))]
        out.append(ndcg(ranked, qrels.get(q, {})))
    return out


def mean(x):
    return sum(x) / len(x)


def build_grid(data, sets, rs=(0.38, 0.45, 0.5, 0.55, 0.6, 0.65), e7s=(1, 2, 3, 4), e6s=(0.75, 1, 1.25), e10s=(1, 2)):
    """Per-query nDCG@10 of every grid point on every set: the E5 share r of
    E1+E5's weight and multipliers of OLD's E7, E6 and E10."""
    grid = {}
    for r in rs:
        for e7 in e7s:
            for e6 in e6s:
                for e10 in e10s:
                    w = dict(OLD)
                    tot = OLD['E1'] + OLD['E5']
                    w.update(E1=tot * (1 - r), E5=tot * r, E7=OLD['E7'] * e7, E6=OLD['E6'] * e6, E10=OLD['E10'] * e10)
                    grid[(r, e7, e6, e10)] = {s: scores(data[s], w) for s in sets}
    return grid


def loso(grid, base, sets, against):
    """Prints, for each set left out, the point the other sets chose and its
    held-out nDCG@10 minus base's, with a paired bootstrap 95% CI."""
    for held in sets:
        train = [s for s in sets if s != held]
        best = max(grid, key=lambda k: mean([mean(grid[k][s]) for s in train]))
        d = [a - b for a, b in zip(grid[best][held], base[held])]
        random.seed(1)
        bs = sorted(mean(random.choices(d, k=len(d))) for _ in range(2000))
        print(f'{held}: chosen {best}: {mean(grid[best][held]):.4f} against {against}{mean(base[held]):.4f}, '
              f'{mean(d):+.4f} [{bs[50]:+.4f}, {bs[1949]:+.4f}]', flush=True)
    best = max(grid, key=lambda k: mean([mean(grid[k][s]) for s in sets]))
    print('on every set:', best, {s: round(mean(grid[best][s]), 4) for s in sets})


def main():
    root, sets = sys.argv[1], sys.argv[2].split(',')
    data = {s: load(root, s) for s in sets}
    grid = build_grid(data, sets)
    loso(grid, grid[(0.38, 1, 1, 1)], sets, '')


if __name__ == '__main__':
    main()
