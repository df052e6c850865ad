#!/usr/bin/env bash
# cuda.sh [OUT]: the weights `--precision fp16` runs on cuda (make setup-cuda-fp16).
# For each of the three default fp32 models (installed by `make setup`):
# ONNX Runtime's transformer optimizer fuses the graph (one Attention per layer
# fed the texts' token counts, SkipLayerNormalization, BiasGelu), converts it to
# fp16 and removes the padding (fuse.py ... fp16 packed: RemovePadding after the
# embeddings, PackedAttention, RestorePadding before the output, so every
# layer runs over the batch's real tokens), then add_pooled.py appends the
# model's own pooled output (e5, MiniLM mean; bge CLS), and e5 gets E12's
# projection in its graph too (scripts/e12graph: one more output, 128 floats
# a token, which E1/E12's run fetches with the pooled one instead of the
# 384-wide token states; twelfth session, not yet run on a GPU). Each file is checked
# against its sha256 below (the conversion is deterministic with
# requirements.txt's pinned packages) and OUT/manifest.json pins them under the
# default ids. OUT defaults to <models dir>/cuda-fp16, where --precision fp16
# looks. The packed operators have CUDA kernels only: these files run on a GPU
# and nowhere else (the CPU keeps fp32 or int8).
# Issue 33, runs 19-21 (docs/CUDA.md), one H100, the same call: query p50
# 0.80 ms against 3.2-3.5 ms fp32 (e5); the full fingerprint 1,485-1,672
# documents/s with batches of 256 against 1,157-1,230 fp32; every vector and
# token state agrees with the CPU's fp32 at cosine >= 0.999989.
# Needs python3 with venv; the packages come from PyPI.
set -euo pipefail
cd "$(dirname "$0")"
MODELS=${CGRAPH_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/models}
OUT=${1:-$MODELS/cuda-fp16}
VENV=${CGRAPH_FP16_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/fp16-venv}
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q -r requirements.txt; }
declare -A POOL=([e5-small-v2]=mean [bge-small-en-v1.5]=cls [all-minilm-l6-v2]=mean)
declare -A WANT=(
	[e5-small-v2]=c441aedd5265cb8af098e70e98118e6eef13776dc1b7a29c376441ffd7ab9d10
	[bge-small-en-v1.5]=d2a30212c900a33d4ca29011822a12ea35088d25b435b281ea93dcbf46fa1b3d
	[all-minilm-l6-v2]=6ecbe8d5eac3b5dd1c361c858378379fa76770e8dd7abc7102c29b1f5114689c
)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for id in "${!WANT[@]}"; do
	[ -f "$MODELS/$id/model.onnx" ] || { echo "cuda.sh: $MODELS/$id/model.onnx is missing: run make setup (or cgraph models pull --default --precision fp32) first" >&2; exit 1; }
	mkdir -p "$OUT/$id"
	"$VENV/bin/python" fuse.py "$MODELS/$id/model.onnx" "$scratch/$id.onnx" fp16 packed >/dev/null
	"$VENV/bin/python" ../pooled/add_pooled.py "$scratch/$id.onnx" "$scratch/$id.pooled.onnx" "${POOL[$id]}"
	if [ "$id" = e5-small-v2 ]; then # E12's projection (sha256 before it: a64ac9a3…)
		(cd ../.. && ${GO:-go} run ./scripts/e12graph "$scratch/$id.pooled.onnx" "$scratch/$id.e12.onnx") >/dev/null
		mv "$scratch/$id.e12.onnx" "$scratch/$id.pooled.onnx"
	fi
	got=$(sha256sum "$scratch/$id.pooled.onnx" | cut -d' ' -f1)
	[ "$got" = "${WANT[$id]}" ] || { echo "cuda.sh: $id fp16 sha256 $got, want ${WANT[$id]} (other package versions than requirements.txt?)" >&2; exit 1; }
	mv "$scratch/$id.pooled.onnx" "$OUT/$id/model.onnx"
	cp "$MODELS/$id/tokenizer.json" "$OUT/$id/"
done
"$VENV/bin/python" pin_manifest.py "$OUT" "packed fp16 (padding removed; CUDA only) with its own pooled output, e5 with E12's projection too (make setup-cuda-fp16)" fp16
echo "cuda.sh: fp16 models for --precision fp16 in $OUT"
