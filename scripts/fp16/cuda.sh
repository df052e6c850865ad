#!/usr/bin/env bash
# cuda.sh [OUT]: the weights `--precision fp16` runs on cuda (make setup-cuda-fp16).
# For each of the three default fp32 models (installed by `make setup`):
# ONNX Runtime's transformer optimizer fuses the graph (one Attention per layer
# fed the raw 0/1 mask, SkipLayerNormalization, BiasGelu) and converts it to
# fp16 (fuse.py ... fp16 rawmask), then add_pooled.py appends the model's own
# pooled output (e5, MiniLM mean; bge CLS). Each file is checked against its
# sha256 below (the conversion is deterministic with requirements.txt's
# pinned packages) and OUT/manifest.json pins them under the default ids.
# OUT defaults to <models dir>/cuda-fp16, where --precision fp16 looks.
# Issue 33, runs 10 and 12 (docs/CUDA.md): on an H100 query p50 1.35 ms
# against 2.21 ms fp32, `add --jsonl` 1,224 against 1,110 documents/s; every
# vector agrees with the fp32 models on the CPU at cosine >= 0.999997.
# Needs python3 with venv; the packages come from PyPI.
set -euo pipefail
cd "$(dirname "$0")"
MODELS=${CGRAPH_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/models}
OUT=${1:-$MODELS/cuda-fp16}
VENV=${CGRAPH_FP16_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/fp16-venv}
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q -r requirements.txt; }
declare -A POOL=([e5-small-v2]=mean [bge-small-en-v1.5]=cls [all-minilm-l6-v2]=mean)
declare -A WANT=(
	[e5-small-v2]=44a4e12cb698d8c0b13a60fbbdcc760f0e774f67f10265856ee49f4c40068b77
	[bge-small-en-v1.5]=9c1fcbb1a58911bccb7b75f2c0f2d3cf515f2c446f4aa45ac1e297f82bca7a3c
	[all-minilm-l6-v2]=5f895f564292502f7030371feb5f74c1ea01b4c8a33ff96afe1808f81d9b5888
)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for id in "${!WANT[@]}"; do
	[ -f "$MODELS/$id/model.onnx" ] || { echo "cuda.sh: $MODELS/$id/model.onnx is missing: run make setup (or cgraph models pull --default --precision fp32) first" >&2; exit 1; }
	mkdir -p "$OUT/$id"
	"$VENV/bin/python" fuse.py "$MODELS/$id/model.onnx" "$scratch/$id.onnx" fp16 rawmask >/dev/null
	"$VENV/bin/python" ../pooled/add_pooled.py "$scratch/$id.onnx" "$scratch/$id.pooled.onnx" "${POOL[$id]}"
	got=$(sha256sum "$scratch/$id.pooled.onnx" | cut -d' ' -f1)
	[ "$got" = "${WANT[$id]}" ] || { echo "cuda.sh: $id fp16 sha256 $got, want ${WANT[$id]} (other package versions than requirements.txt?)" >&2; exit 1; }
	mv "$scratch/$id.pooled.onnx" "$OUT/$id/model.onnx"
	cp "$MODELS/$id/tokenizer.json" "$OUT/$id/"
done
"$VENV/bin/python" pin_manifest.py "$OUT" "fused raw-mask fp16 with its own pooled output (make setup-cuda-fp16)" fp16
echo "cuda.sh: fp16 models for --precision fp16 in $OUT"
