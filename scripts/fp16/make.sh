#!/usr/bin/env bash
# make.sh OUT: fp16 conversions of the three default fp32 models (installed by
# `make setup` / `cgraph models pull --default --precision fp32`) into OUT/<id>/,
# with OUT/manifest.json: the built-in manifest with those models' model.onnx
# pinned to the conversions (same ids, so the slot plan is unchanged; the
# producers differ by sha256). For scripts/gpucheck -models-dir OUT -manifest
# OUT/manifest.json (issue 33's fp16 experiment). Needs python3 with venv; the
# packages come from PyPI (requirements.txt).
set -euo pipefail
cd "$(dirname "$0")"
OUT=${1:?usage: make.sh OUT}
MODELS=${CGRAPH_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/models}
VENV=${CGRAPH_FP16_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/fp16-venv}
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q -r requirements.txt; }
declare -A WANT=(
	[e5-small-v2]=700607e81620364899e4cc98fd0947d0c96025f3f833e4efe925baa184af951a
	[bge-small-en-v1.5]=f54162cad955f1d32bea06f97557abb1fabec9b5e3befae203f8ff81c7a9bad4
	[all-minilm-l6-v2]=f0d8774cc775a938d880a637577e0a03df061aeb584a1e9aea0e4f5611c38587
)
for id in "${!WANT[@]}"; do
	mkdir -p "$OUT/$id"
	cp "$MODELS/$id/tokenizer.json" "$OUT/$id/"
	"$VENV/bin/python" convert.py "$MODELS/$id/model.onnx" "$OUT/$id/model.onnx" 2>/dev/null
	got=$(sha256sum "$OUT/$id/model.onnx" | cut -d' ' -f1)
	[ "$got" = "${WANT[$id]}" ] || { echo "make.sh: $id fp16 sha256 $got, want ${WANT[$id]} (other package versions?)" >&2; exit 1; }
done
"$VENV/bin/python" pin_manifest.py "$OUT" "fp16 conversion (scripts/fp16)" fp16
echo "make.sh: fp16 models and manifest in $OUT"
