#!/usr/bin/env bash
# make.sh OUT: the three default fp32 models (installed by `make setup` /
# `cgraph models pull --default --precision fp32`) with their own pooled
# output (add_pooled.py: e5 and MiniLM "pooled_mean", bge "pooled_cls") in
# OUT/<id>/, with OUT/manifest.json: the built-in manifest with those files
# pinned under the same ids. For scripts/gpucheck -models-dir OUT -manifest
# OUT/manifest.json (issue 33's pooled-output experiment). Needs python3 with
# venv; the packages come from PyPI (scripts/fp16/requirements.txt: the same
# pinned onnx).
set -euo pipefail
cd "$(dirname "$0")"
OUT=${1:?usage: make.sh OUT}
MODELS=${CGRAPH_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/models}
VENV=${CGRAPH_FP16_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph/fp16-venv}
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q -r ../fp16/requirements.txt; }
declare -A POOL=([e5-small-v2]=mean [bge-small-en-v1.5]=cls [all-minilm-l6-v2]=mean)
declare -A WANT=(
	[e5-small-v2]=e7ca859f1d0cae080e9f450c69f501740962745f421ad7fda0d8b9f73b26112f
	[bge-small-en-v1.5]=e6f815fed79fbc48b57c4b85d0e51e45897f238bb75f4e18b8cfc4f6d58fc787
	[all-minilm-l6-v2]=f9ee9d974a77e3b395cb2990af5d9de9e6b5a513c3f2a6b065d5bb814e5a126b
)
for id in "${!WANT[@]}"; do
	mkdir -p "$OUT/$id"
	cp "$MODELS/$id/tokenizer.json" "$OUT/$id/"
	"$VENV/bin/python" add_pooled.py "$MODELS/$id/model.onnx" "$OUT/$id/model.onnx" "${POOL[$id]}"
	got=$(sha256sum "$OUT/$id/model.onnx" | cut -d' ' -f1)
	[ "$got" = "${WANT[$id]}" ] || { echo "make.sh: $id pooled sha256 $got, want ${WANT[$id]} (other package versions?)" >&2; exit 1; }
done
"$VENV/bin/python" ../fp16/pin_manifest.py "$OUT" "with its own pooled output (scripts/pooled)"
echo "make.sh: pooled models and manifest in $OUT"
