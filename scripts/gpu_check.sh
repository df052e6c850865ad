#!/usr/bin/env bash
# gpu_check.sh: what a person with an NVIDIA GPU runs to see whether
# `--device cuda` works and earns the GPU — in under five minutes on one
# H100/H200 with the three default models in fp32:
#
#   1. install check: scripts/setup_cuda.sh (installs the CUDA build of ONNX
#      Runtime if needed, finds the CUDA 13 libraries, prints the env), then
#      `cgraph --device cuda embedders`, which opens every model on the GPU
#      and names the device each runs on;
#   2. scripts/gpucheck (one process, one ONNX Runtime library for both
#      devices): parity cuda vs cpu on fixed texts (cosine >= 0.999 per text),
#      query-encoding p50/p95, ingest docs/s per model with where the time
#      goes (tokenize, pack, run, unpack), full 13-slot fingerprints through
#      the registry and through engine.AddBatch (embedding + RocksDB write),
#      on cuda and on the CPU in the same run;
#   3. GPU utilisation: nvidia-smi sampled every 200 ms, averaged over each
#      measurement's span.
#
# Results go to $GPU_CHECK_OUT (default ./gpu-check): gpucheck.json,
# gpucheck.log, smi.csv, utilisation.txt. Knobs: GPU_DOCS (2000), CPU_DOCS
# (256), QUERIES (200), CGRAPH_BIN and GPUCHECK_BIN (prebuilt binaries;
# default: built here with go), CORPUS (one JSON string per line; default:
# Go functions from $GOROOT/src), GPUCHECK_ARGS (more flags).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${GPU_CHECK_OUT:-gpu-check}"
mkdir -p "$OUT"
log() { printf 'gpu_check: %s\n' "$*" >&2; }

command -v nvidia-smi >/dev/null 2>&1 || log "nvidia-smi not found: no NVIDIA driver here? (going on; the install check will say what is missing)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu_check: GPU /' >&2 || true

# 1. Install check.
env_lines=$(bash scripts/setup_cuda.sh) || { rc=$?; echo "$env_lines"; log "setup_cuda.sh exit $rc: fix what it names, then run again"; exit "$rc"; }
echo "$env_lines"
eval "$env_lines"

CGRAPH_BIN="${CGRAPH_BIN:-}"
GPUCHECK_BIN="${GPUCHECK_BIN:-}"
if [ -z "$CGRAPH_BIN" ]; then
	make build >/dev/null
	CGRAPH_BIN=bin/cgraph
fi
if [ -z "$GPUCHECK_BIN" ]; then
	go build -o bin/gpucheck ./scripts/gpucheck
	GPUCHECK_BIN=bin/gpucheck
fi
log "cgraph --device cuda embedders (opens every model on the GPU)"
"$CGRAPH_BIN" --db "$OUT/no-store" --device cuda embedders | tee "$OUT/embedders.txt"

# 2 and 3. Measurements with nvidia-smi sampling beside them.
smi_pid=
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used --format=csv,noheader,nounits -lms 200 >"$OUT/smi.csv" 2>/dev/null &
	smi_pid=$!
fi
corpus_args=()
[ -n "${CORPUS:-}" ] && corpus_args=(-corpus "$CORPUS")
set +e
# shellcheck disable=SC2086
"$GPUCHECK_BIN" -out "$OUT/gpucheck.json" -gpu-docs "${GPU_DOCS:-2000}" -cpu-docs "${CPU_DOCS:-256}" \
	-queries "${QUERIES:-200}" "${corpus_args[@]}" ${GPUCHECK_ARGS:-} 2>&1 | grep -v '^\s*$' | tee "$OUT/gpucheck.log"
rc=${PIPESTATUS[0]}
set -e
[ -n "$smi_pid" ] && kill "$smi_pid" 2>/dev/null && wait "$smi_pid" 2>/dev/null || true

if [ -s "$OUT/smi.csv" ] && [ -s "$OUT/gpucheck.json" ] && command -v python3 >/dev/null 2>&1; then
	python3 - "$OUT/gpucheck.json" "$OUT/smi.csv" <<'EOF' | tee "$OUT/utilisation.txt"
import json, sys, datetime as dt
res = json.load(open(sys.argv[1]))
samples = []
for line in open(sys.argv[2]):
    p = [x.strip() for x in line.split(",")]
    try:
        t = dt.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()  # nvidia-smi prints local time
        samples.append((t, float(p[1]), float(p[2]), float(p[3])))
    except (ValueError, IndexError):
        pass
print("GPU utilisation during each measurement (nvidia-smi every 200 ms; sm% / mem-bw% / MiB):")
for kind, rows in (("query", res.get("queries") or []), ("ingest", res.get("ingest") or []), ("full", res.get("full_fingerprint") or [])):
    for r in rows:
        if "cpu" in r.get("device", "") and kind != "full":
            continue
        if kind == "full" and r.get("device") != "cuda":
            continue
        a, b = r["start_unix"], r["end_unix"]
        s = [x for x in samples if a <= x[0] <= b]
        name = r.get("model") or r.get("what")
        if not s:
            print(f"  {kind:6s} {name:22s} no samples ({b-a:.2f} s)")
            continue
        n = len(s)
        print(f"  {kind:6s} {name:22s} sm {sum(x[1] for x in s)/n:5.1f}% (max {max(x[1] for x in s):3.0f})  mem-bw {sum(x[2] for x in s)/n:5.1f}%  used {max(x[3] for x in s):6.0f} MiB  over {n} samples")
EOF
fi
exit "$rc"
