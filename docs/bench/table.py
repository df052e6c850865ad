#!/usr/bin/env python3
"""Print the README "Benchmarks" tables from the two `bench run --json` summaries.

    python3 docs/bench/table.py docs/bench/clean/summary.json docs/bench/typos/summary.json
    python3 docs/bench/table.py --dev docs/bench/py/summary.json docs/bench/py-typos/summary.json docs/bench/causal/summary.json
    python3 docs/bench/table.py --ablate docs/bench/ablate-pipeline_full.json docs/bench/ablate-code_search.json
"""
import json
import sys


def runs(path):
    with open(path) as f:
        return {r["name"]: r for r in json.load(f)["runs"]}, json.load(open(path))


def ndcg(d, k):
    r = d.get(k)
    return f"{r['metrics']['ndcg@10']:.3f}" if r else "–"


def verdict(r):
    v = (r.get("vs_baseline") or {}).get("ndcg@10")
    if not v:
        return "baseline"
    mark = {"win": "▲", "loss": "▼"}.get(v["verdict"], "n.s.")
    return f"{mark} {v['delta']:+.3f} [{v['ci95']['lo']:+.3f}, {v['ci95']['hi']:+.3f}]"


def dev(paths):
    """One table per set: every run, nDCG@10 with its CI, the paired delta
    against the set's baseline run, Recall@100, p95; typo nDCG@10 where a
    typo summary of the same set is given."""
    sets = [(p, *runs(p)) for p in paths]
    for path, R, summary in sets:
        if "typos" in path:
            continue
        T = next((r for p, r, _ in sets if p != path and "typos" in p and p.split("/")[-2].startswith(path.split("/")[-2])), {})
        n = max((s["queries"] for r in summary["runs"] for s in r.get("stages") or []), default="?")
        print(f"**{summary['dataset']}** ({n} queries; ▲/▼ against `{summary.get('baseline')}`, Holm-adjusted)")
        print()
        print("| run | nDCG@10 (95% CI) | vs baseline (paired 95% CI) | Recall@100 | typos nDCG@10 | p95 ms |")
        print("|---|---|---|---|---|---|")
        for r in summary["runs"]:
            m, ci = r["metrics"], r["ci95"]["ndcg@10"]
            print(f"| {r['name']} | {m['ndcg@10']:.3f} ({ci['lo']:.3f}–{ci['hi']:.3f}) | {verdict(r)} "
                  f"| {m['recall@100']:.3f} | {ndcg(T, r['name'])} | {r['latency_ms']['p95']:.0f} |")
        print()


def ablate(paths):
    """One table per `bench ablate --json` output: ΔnDCG@10 of each slot removed."""
    for path in paths:
        with open(path) as f:
            a = json.load(f)
        print(f"**{a['mode']}:{a['profile']}** on {a['data']}: nDCG@10 {a['ndcg_at_10']:.3f} with every slot")
        print()
        print("| slot removed | nDCG@10 | Δ (paired 95% CI) | p | queries better / worse without it |")
        print("|---|---|---|---|---|")
        for r in a["ablations"]:
            mark = "▼" if r["delta_ci95_high"] < 0 else ("▲" if r["delta_ci95_low"] > 0 else "n.s.")
            print(f"| {r['removed']} | {r['ndcg_at_10']:.3f} | {mark} {r['delta']:+.3f} [{r['delta_ci95_low']:+.3f}, {r['delta_ci95_high']:+.3f}] "
                  f"| {r['p_value']:.3f} | {r['wins']} / {r['losses']} |")
        print()


def main():
    if sys.argv[1] == "--ablate":
        ablate(sys.argv[2:])
        return
    if sys.argv[1] == "--dev":
        dev(sys.argv[2:])
        return
    C, clean = runs(sys.argv[1])
    T, _ = runs(sys.argv[2])
    print("| profile | multi_space clean | multi_space typos | pipeline clean | pipeline typos | p95 ms multi_space / pipeline |")
    print("|---|---|---|---|---|---|")
    for r in clean["runs"]:
        p = r["profile"]
        if r["mode"] != "multi_space" or r["name"] != "multi_space:" + p:
            continue
        ms, pl = "multi_space:" + p, "pipeline:" + p
        print(f"| {p} | {ndcg(C, ms)} | {ndcg(T, ms)} | {ndcg(C, pl)} | {ndcg(T, pl)} "
              f"| {C[ms]['latency_ms']['p95']:.0f} / {C[pl]['latency_ms']['p95']:.0f} |")
    print()
    print("| single slot / baseline | clean nDCG@10 (95% CI) | typos | MRR@10 | R@100 | p50 / p95 ms |")
    print("|---|---|---|---|---|---|")
    for k, label in [("bm25_only", "E6 BM25 (`bm25_only`)"), ("e1_only", "E1 e5-small-v2 (`e1_only`)"),
                     ("embedder_first:E5", "E5 bge-small-en-v1.5 + direction head"),
                     ("embedder_first:E7", "E7 all-MiniLM-L6-v2"), ("embedder_first:E8", "E8 structure text (MiniLM)"),
                     ("embedder_first:E9", "E9 trigram hypervector"), ("embedder_first:E10", "E10 intent/context (MiniLM)"),
                     ("embedder_first:E11", "E11 entity sets"), ("rrf_e1_e6", "RRF(E1, E6) (`rrf_e1_e6`)")]:
        r = C.get(k)
        if not r:
            continue
        m, ci = r["metrics"], r["ci95"]["ndcg@10"]
        print(f"| {label} | {m['ndcg@10']:.3f} ({ci['lo']:.3f}–{ci['hi']:.3f}) | {ndcg(T, k)} | {m['mrr@10']:.3f} "
              f"| {m['recall@100']:.3f} | {r['latency_ms']['p50']:.1f} / {r['latency_ms']['p95']:.1f} |")
    print()
    stages = []
    for r in clean["runs"]:
        for s in r.get("stages") or []:
            if s["stage"] not in stages:
                stages.append(s["stage"])
    order = ["encode", "primary", "S1 recall", "S2 filter", "S3 fusion", "S4 rerank", "S5 validate"]
    stages.sort(key=lambda s: order.index(s) if s in order else len(order))
    print("| run (clean, ms p50 / p95) | " + " | ".join(stages) + " | end to end |")
    print("|---|" + "---|" * (len(stages) + 1))
    for name in ["e1_only", "rrf_e1_e6", "multi_space:semantic_search", "multi_space:code_search",
                 "pipeline:semantic_search", "pipeline:code_search", "pipeline:typo_tolerant", "pipeline:pipeline_full"]:
        r = C[name]
        by = {s["stage"]: s["latency_ms"] for s in r.get("stages") or []}
        cells = [f"{by[s]['p50']:.1f} / {by[s]['p95']:.1f}" if s in by else "–" for s in stages]
        print(f"| {name} | " + " | ".join(cells) + f" | {r['latency_ms']['p50']:.1f} / {r['latency_ms']['p95']:.1f} |")


if __name__ == "__main__":
    main()
