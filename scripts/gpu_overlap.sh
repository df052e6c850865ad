#!/usr/bin/env bash
# gpu_overlap.sh: do the three default models' token passes overlap on one
# GPU when each runs in its own process? Inside one process they overlap
# only 1.23–1.33× (docs/CUDA.md, runs 13–14) whatever the session knobs; this
# says whether that limit belongs to the process (its sessions, ONNX Runtime,
# the CUDA context) or to the GPU.
#
#   A: one gpucheck process per model, each warmed up, its passes at times
#      far apart (-pass-at): each model alone on the GPU;
#   B: the same processes, their passes at one moment: all at once;
#   then sum of A's passes / B's wall = the speedup across processes, to set
#   beside gpucheck's "models at once" line (one process).
#
# Knobs: DEVICE (cuda; cpu exercises the script without a GPU), DOCS (2000),
# REPEATS (3), GAP (seconds between A's processes, 6), LEAD (seconds the
# processes get to open and warm up, 30), GPUCHECK_BIN, GPUCHECK_ARGS, OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-gpu-overlap}"
DEVICE="${DEVICE:-cuda}" DOCS="${DOCS:-2000}" REPEATS="${REPEATS:-3}" GAP="${GAP:-6}" LEAD="${LEAD:-30}"
MODELS="${MODELS:-e5-small-v2 bge-small-en-v1.5 all-minilm-l6-v2}"
mkdir -p "$OUT"
if [ "$DEVICE" = cuda ]; then
	env_lines=$(bash scripts/setup_cuda.sh) || { echo "$env_lines"; exit 1; }
	eval "$env_lines"
fi
GPUCHECK_BIN="${GPUCHECK_BIN:-}"
if [ -z "$GPUCHECK_BIN" ]; then
	go build -o bin/gpucheck ./scripts/gpucheck
	GPUCHECK_BIN=bin/gpucheck
fi
# passes PHASE STAGGER: one process per model, the i-th passing at T + i·STAGGER;
# waits for exactly those processes.
passes() {
	local phase=$1 stagger=$2 i=0 pids=() t
	t=$(($(date +%s) + LEAD))
	for m in $MODELS; do
		# shellcheck disable=SC2086
		"$GPUCHECK_BIN" -devices "$DEVICE" -models "$m" -gpu-docs "$DOCS" -pass-repeats "$REPEATS" \
			-pass-at $((t + i * stagger)) ${GPUCHECK_ARGS:-} >"$OUT/$phase-$m.log" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || { echo "gpu_overlap: a $phase process failed; see $OUT/$phase-*.log" >&2; exit 1; }; done
}
passes A "$GAP"
passes B 0
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
def rows(phase):
    rs = []
    for f in sorted(glob.glob(os.path.join(out, phase + "-*.log"))):
        rs += [json.loads(l) for l in open(f) if l.startswith("{")]
    return rs
a, b = rows("A"), rows("B")
seq = sum(r["end"] - r["start"] for r in a)
for phase, rs in (("alone", a), ("together", b)):
    per = {}
    for r in rs:
        per.setdefault(r["model"], []).append(r["end"] - r["start"])
    for m, v in sorted(per.items()):
        print(f"{phase:9s} {m:20s} " + " ".join(f"{x*1000:7.1f}" for x in v) + " ms")
wall = max(r["end"] for r in b) - min(r["start"] for r in b)
print(f"sum of the passes alone {seq*1000:.0f} ms; all processes at once {wall*1000:.0f} ms: {seq/wall:.2f}x across processes")
PY
