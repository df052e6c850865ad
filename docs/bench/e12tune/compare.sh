#!/usr/bin/env bash
# The engine figures of README.md: paired bench compares of the reports the
# README's bench runs write under R (default bench-out/e12tune).
set -euo pipefail
R=${R:-bench-out/e12tune}
C=${CGRAPH:-bin/cgraph}
cmp() { # label, report A, report B, run
	printf '%s | %s\n' "$1" "$("$C" bench compare "$2" "$3" --run "$4" 2>&1 | sed -n 2,3p | tr '\n' ' ' | sed 's/ (20000 sampled sign flips)//; s/  */ /g')"
}
echo "# S4 at 0.15 against S4 skipped (what ships), same store: the trained projection (A skipped, B reranked)"
for p in code_search semantic_search auto pipeline_full; do cmp "go (held out), $p" $R/go-holdgo-skip/report.json $R/go-holdgo-rr0.15/report.json pipeline:$p; done
for p in code_search semantic_search auto pipeline_full; do cmp "py (held out), $p" $R/py-holdpy-skip/report.json $R/py-holdpy-rr0.15/report.json pipeline:$p; done
for p in semantic_search causal_reasoning pipeline_full auto; do cmp "causal (all-language fit), $p" $R/causal-all-skip/report.json $R/causal-all-rr0.15/report.json pipeline:$p; done
echo "# the same with the shipped PCA (go)"
for p in code_search semantic_search pipeline_full; do cmp "go PCA, $p" $R/go-pca-skip/report.json $R/go-pca-rr0.15/report.json pipeline:$p; done
echo "# S4 at 0.15: trained against PCA (go, two stores)"
for p in code_search semantic_search pipeline_full; do cmp "go, $p" $R/go-pca-rr0.15/report.json $R/go-holdgo-rr0.15/report.json pipeline:$p; done
echo "# profiles that weigh E12 themselves (always rerank): trained against PCA (go)"
for p in typo_tolerant balanced; do cmp "go, $p" $R/go-pca-skip/report.json $R/go-holdgo-e12prof/report.json pipeline:$p; done
echo "# sanity: S4 skipped, the two stores (only E12 differs) rank alike"
for p in code_search pipeline_full; do cmp "go, $p" $R/go-pca-skip/report.json $R/go-holdgo-skip/report.json pipeline:$p; done
