#!/usr/bin/env bash
# Refit E7's fine-tuned query encoder (embedders/neural/e7tune.bin) and its
# leave-one-language-out figures (e7tune.txt). CPU only; on 2 cores the fit
# on every pair takes ~15 min and each held-out fold ~11 min.
#
#   scripts/e7tune/make.sh            # fit on every pair, export, write the reference vectors
#   LOLO=1 scripts/e7tune/make.sh     # also the four leave-one-language-out folds
#
# 1. The pairs: TestE7Dump mines doc-comment → function pairs exactly as
#    TestUpdateE7Head does (same trees, seed and split) and writes them with
#    MiniLM's document vectors as E7 stores them (head-pooled, E7 v2) and
#    E1's vectors (every split's documents, the test splits' queries). The
#    same fit on E1's model, against E1's stored documents:
#    train.py --onnx …/e5-small-v2/model.onnx --docs e1 --qprefix "query: "
#    --tau 0.01 (docs/bench/e1tune/README.md; shipped as e1tune.bin); on
#    E5's, with CGRAPH_E7_DUMP_E5=1 for its vectors: train.py --onnx
#    …/bge-small-en-v1.5/model.onnx --docs e5 --tau 0.02 (through E5's head;
#    docs/bench/e5tune/README.md; shipped as e5tune.bin).
# 2. train.py fits a rank-16 LoRA update of MiniLM's 36 weight matrices on the
#    query side only (documents stay MiniLM's stored vectors), InfoNCE against
#    every training document, one epoch, seeded.
# 3. export.py writes the update in cgraph's low-rank format (half floats)
#    and testdata/e7tune_ref.json, the vectors TestTuneParity compares.
# train2.py (both sides, documents re-encoded), evalsets.py and fuse.py are
# the twentieth session's measurement, not part of this build
# (docs/bench/e7both/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${E7TUNE_WORK:-/tmp/cgraph-e7tune}
venv=$work/venv
mkdir -p "$work"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements.txt"
onnx=${CGRAPH_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/models}/all-minilm-l6-v2/model.onnx
(cd "$root" && CGRAPH_E7_DUMP="$work/dump" go test ./embedders/neural -run 'TestE7Dump$' -timeout 0 -v | tail -3)
cd "$here"
"$venv/bin/python" train.py --dump "$work/dump" --onnx "$onnx" --out "$work/all.npz" | tee "$work/all.log"
"$venv/bin/python" export.py "$work/all.npz" "$root/embedders/neural/e7tune.bin" --onnx "$onnx" | tee "$work/export.log"
if [ -n "${LOLO:-}" ]; then
  for h in go python java javascript; do
    "$venv/bin/python" train.py --dump "$work/dump" --onnx "$onnx" --hold "$h" | tee "$work/hold-$h.log" | tail -1
  done
fi
# embedders/neural/e7tune.txt is assembled from these logs (the recipe lines
# at its top are the defaults of train.py); TestTuneFiles checks it names
# the new sha256, and codehead_test.go's pin must be updated with it.
echo "logs: $work/all.log $work/export.log ${LOLO:+$work/hold-*.log}"
