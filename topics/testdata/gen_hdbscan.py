#!/usr/bin/env python3
"""Writes hdbscan_fixtures.json: generated point sets with their true labels and
scikit-learn's HDBSCAN labels on the same points, for topics/hdbscan_test.go.

Run from this directory (needs scikit-learn >= 1.3, numpy):
    python3 gen_hdbscan.py
The fixtures are committed; the Go tests never run Python.
"""
import json

import numpy as np
import sklearn
from sklearn.cluster import HDBSCAN
from sklearn.datasets import make_blobs, make_moons


def case(name, X, truth, mcs, ms=None):
    X = np.round(X, 6)
    h = HDBSCAN(min_cluster_size=mcs, min_samples=ms, metric="euclidean",
                algorithm="brute", copy=True).fit(X)
    return {
        "name": name,
        "min_cluster_size": mcs,
        "min_samples": 0 if ms is None else ms,
        "points": X.tolist(),
        "truth": [int(t) for t in truth],
        "sklearn_labels": [int(l) for l in h.labels_],
        "sklearn_probabilities": [round(float(p), 9) for p in h.probabilities_],
    }


def main():
    cases = []
    X, y = make_blobs(n_samples=200, centers=4, cluster_std=0.6, random_state=7)
    cases.append(case("blobs4_200", X, y, 10))
    X, y = make_blobs(n_samples=300, centers=[[0, 0], [6, 6], [-6, 5]],
                      cluster_std=[0.4, 1.0, 2.0], random_state=3)
    cases.append(case("blobs3_varied_density", X, y, 15, 5))
    X, y = make_blobs(n_samples=150, n_features=16, centers=5, cluster_std=1.0, random_state=11)
    cases.append(case("blobs5_16d", X, y, 8))
    rng = np.random.default_rng(5)
    Xb, yb = make_blobs(n_samples=160, centers=3, cluster_std=0.5, random_state=21)
    Xn = rng.uniform(Xb.min(0) - 3, Xb.max(0) + 3, size=(40, 2))
    X = np.vstack([Xb, Xn])
    y = np.concatenate([yb, -np.ones(40, dtype=int)])
    cases.append(case("blobs3_uniform_noise", X, y, 10, 5))
    X, y = make_moons(n_samples=200, noise=0.06, random_state=4)
    cases.append(case("moons", X, y, 10, 5))
    X, y = make_blobs(n_samples=240, centers=[[0, 0], [1.2, 0], [8, 8], [9.2, 8]],
                      cluster_std=0.3, random_state=13)
    cases.append(case("nested_blobs_eom", X, y, 10, 5))
    out = {"generator": "scikit-learn " + sklearn.__version__ + " HDBSCAN(metric=euclidean, algorithm=brute)",
           "cases": cases}
    with open("hdbscan_fixtures.json", "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
