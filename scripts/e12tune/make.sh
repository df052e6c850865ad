#!/usr/bin/env bash
# Fit a projection for E12 (the 384 → 128 map of e5-small-v2's token states
# that E12's MaxSim reads while no ColBERT model is installed; it ships as
# the PCA embedders/neural/e12pca.bin) trained for late interaction on mined
# doc-comment → code pairs. The twenty-third session's measurement; the fit
# is not shipped (docs/bench/e12tune/README.md says why). CPU only; on 2
# cores the dump takes ~8 min and each fit ~4 min.
#
#   scripts/e12tune/make.sh           # dump, fit on every language: $work/e12proj.bin
#   LOLO=1 scripts/e12tune/make.sh    # also the go and python held-out fits
#   CGRAPH_E12_SETS=SET,SET …         # also dump bench sets (bench prepare's output) to evaluate on
#
# 1. TestE12Dump (embedders/neural/e12dump_test.go) writes the token states
#    of TestE7Dump's pairs (same trees, seed and split) as E12 reads them:
#    queries as typed behind "query: ", code in the code view behind
#    "passage: ", every token; with CGRAPH_E12_SETS, bench sets too.
# 2. train.py starts from the shipped PCA (e12pca.bin, TestUpdateE12PCA) and
#    fits mean and map with ColBERT's in-batch InfoNCE over MaxSim (τ 0.05, batches of 32 pairs of one language, Adam 2e-3,
#    600 steps, documents cut at 256 tokens, seed 1); the encoder is frozen.
#    It prints E1 alone, E12 reranking E1's top 100, and their RRF at E12
#    weights 0.15 and 1, on every test split and dumped set.
# To try a fit in the engine, build with it in place of e12pca.bin: E12's
# producer names the projection's sha256, so a store built before asks for an
# E12 reembed, and scripts/fp16/cuda.sh's e5 sha256 (E12's map is in the cuda
# fp16 graph) changes with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${E12TUNE_WORK:-/tmp/cgraph-e12tune}
venv=${E7TUNE_VENV:-/tmp/cgraph-e7tune/venv}
mkdir -p "$work"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$root/scripts/e7tune/requirements.txt"
(cd "$root" && CGRAPH_E12_DUMP="$work/dump" go test ./embedders/neural -run 'TestE12Dump$' -timeout 0 -v | grep -E 'texts|pairs' )
export PYTHONDONTWRITEBYTECODE=1
fit() { "$venv/bin/python" "$here/train.py" --dump "$work/dump" --pca "$root/embedders/neural/e12pca.bin" "$@"; }
fit --out "$work/e12proj.bin" | tee "$work/all.log"
if [ -n "${LOLO:-}" ]; then
	for h in go python; do fit --hold "$h" --out "$work/hold-$h.bin" | tee "$work/hold-$h.log"; done
fi
sha256sum "$work/e12proj.bin"
