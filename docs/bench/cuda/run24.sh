#!/usr/bin/env bash
# Run 24 (issue 33, thirteenth session, 2026-11-27, one H100: 195 s for
# the nine runs; results run24-*.json, run24-engine-cpuprofile.txt): staged as run 22 (run22-plan.sh:
# parts of `tar -C STAGE -c ort m32 pk | zstd -6 -T2 | split -b 48000000 -d`
# moved to /root/stage one call each, then this call carrying .gpu/final:
# bins.tgz, lib/, libfb/, bin/zstd, corpus.jsonl). bins.tgz holds three
# gpucheck builds: base/ = 466e3c7 (run 22's "new"), new/ = c083555 (the
# engine's WriteStats, the indexes updated beside the commit, the store's
# WriteBatch kept for the next), newB/ = new/ with internal/parallel's
# shared helper budget (GOMAXPROCS-1 helpers for every ForEach at once,
# the caller working too; not committed: this run decides).
#
# What it answers:
#  1. parity, which runs 22-23 left out: the first run has the CPU side
#     (no -devices), so "E12 projected in the graph" is checked against
#     the CPU's fp32 token states projected on the host;
#  2. where the store half's time goes on this machine (the "writes" line:
#     stage, commit, write, index per document), new/ against base/;
#  3. newB/ (the helper budget) and new/ with -sessions 2 against new/.
set -uo pipefail
F=$PWD/.gpu/final
R=/root/res; mkdir -p $R
step() { echo "=== $(date +%T) $*"; }
step unpack
C=/root/.cache/cgraph; mkdir -p $C/onnxruntime-gpu/1.31.1 $C/models /root/u
if [ ! -d /root/u/pk ]; then
	cat /root/stage/p* | LD_LIBRARY_PATH=$F/libfb $F/bin/zstd -d -q | tar -x -C /root/u || { echo "unpack failed"; ls -la /root/stage; exit 1; }
	cp -a /root/u/ort/. $C/onnxruntime-gpu/1.31.1/ && cp -a /root/u/m32/. $C/models/ || echo "copy failed"
fi
PK=/root/u/pk
tar xzf $F/bins.tgz -C $F
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export LD_LIBRARY_PATH=$F/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$F/libfb
eval "$(bash scripts/setup_cuda.sh 2>$R/setup.err)"; echo "setup rc=$?"
gc() { # BIN NAME EXTRA...
	local bin=$1 name=$2; shift 2
	step "$name"
	timeout 150 $F/$bin/gpucheck -gpu-docs 2000 -cpu-docs 64 -queries 100 -slot-docs 0 -overlap=false \
		-import-batches 256 -import-inflight 1,3 -corpus $F/corpus.jsonl -out $R/$name.json \
		-models-dir $PK -manifest $PK/manifest.json -reference-models-dir $C/models -batch 256 "$@" > $R/$name.log 2>&1
	echo "rc=$?"
	grep -E 'E12|worst|registry  |engine  |in flight|writes|halves|gpucheck:|failed' $R/$name.log | head -40
	tar czf $OUT/all.tgz -C $R . 2>/dev/null # each run's results come back even if a later one is cut off
}
gc new G0-new-parity -engine-cpuprofile $R/G0-engine.prof -import-trace $R/G0-import.trace
gc base G1-base -devices cuda
gc new G2-new -devices cuda
gc newB G3-newB -devices cuda
gc new G4-new-sessions2 -devices cuda -sessions 2
gc base G5-base -devices cuda
gc new G6-new -devices cuda
gc newB G7-newB -devices cuda
gc new G8-new-sessions2 -devices cuda -sessions 2
step done
