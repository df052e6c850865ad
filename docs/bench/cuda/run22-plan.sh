#!/usr/bin/env bash
# Run 22 (issue 33): prepared in the eleventh session, revised in the
# twelfth (neither had a GPU), run in the thirteenth (2026-11-27, one H100:
# 98 s for the five runs; results run22-*.json, run22-engine-cpuprofile.txt).
# Its `-devices cuda` left out the CPU side, so the parity (E12 projected in
# the graph included) did not run: run24.sh runs it. Same staging as run19-device.sh: parts of
# `tar -C STAGE -c ort m32 fzp pk | zstd -6 -T2 | split -b 48000000 -d`
# moved to /root/stage one call each, then this call carrying .gpu/final
# (this script, bins.tgz with new/ = HEAD and base/ = c596411 builds of
# cgraph and gpucheck, lib/, libfb/, bin/zstd, corpus.jsonl). bins.tgz, on
# the CPU machine:
#   git worktree add /tmp/base c596411 && ln -s $PWD/.deps /tmp/base/.deps
#   for v in new:. base:/tmp/base; do d=${v%%:*}; (cd ${v#*:} && go build -o $STAGE/$d/gpucheck ./scripts/gpucheck && go build -o $STAGE/$d/cgraph ./cmd/cgraph); done
#   tar czf .gpu/final/bins.tgz -C $STAGE new base
#
# pk must be built by this tree's `make setup-cuda-fp16` (scripts/fp16/cuda.sh
# OUT; twelfth session): its e5 (sha256 c441aedd…) carries E12's projection in
# the graph, which new/ reads (E1/E12 from the pooled and projected outputs)
# and base/ ignores (it fetches the token states as before). new/ also has
# the commit's sorted keys (engine).
#
# What it answers, in one call of ~7.5 minutes:
#  1. do add --jsonl's two halves overlap on the GPU machine (gpucheck
#     `halves`, and an execution trace of the pipelined import)?
#     BenchmarkImportOverlap says they do on the CPU machine;
#  2. what the eleventh session's host-CPU cuts (native BERT tokenizer,
#     cheaper judge, quantisation, decode, allocations) give there: new/
#     against base/ in the same call, packed fp16 at batches of 256;
#  3. the new engine CPU profile (E-new-engine.prof: read it here with
#     go tool pprof and the same gpucheck binary): what the host spends now;
#  4. E12 in the graph: new/'s parity lists "E12 projected in the graph"
#     (must be >= -min-cosine) and e5's EmbedWithTokens ingest figure is the
#     pooled + projected pass; E-new-hoste12 is new/ with -host-e12 (the
#     token states to the host, projected there, as before): the A/B of the
#     projection alone, in the same call (five runs: ~7.5 minutes).
set -uo pipefail
F=$PWD/.gpu/final
R=/root/res; mkdir -p $R
step() { echo "=== $(date +%T) $*"; }
step unpack
C=/root/.cache/cgraph; mkdir -p $C/onnxruntime-gpu/1.31.1 $C/models /root/u
cat /root/stage/p* | LD_LIBRARY_PATH=$F/libfb $F/bin/zstd -d -q | tar -x -C /root/u || { echo "unpack failed"; ls -la /root/stage; exit 1; }
cp -a /root/u/ort/. $C/onnxruntime-gpu/1.31.1/ && cp -a /root/u/m32/. $C/models/ || echo "copy failed"
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
		-models-dir $PK -manifest $PK/manifest.json -reference-models-dir $C/models -devices cuda -batch 256 "$@" > $R/$name.log 2>&1
	echo "rc=$?"
	grep -E 'E12|worst|docs/s|registry|add --jsonl|engine|halves|at once|gpucheck:|failed' $R/$name.log | head -40
	tar czf $OUT/all.tgz -C $R . 2>/dev/null # each run's results come back even if a later one is cut off
}
gc new E-new-packed16-b256 -engine-cpuprofile $R/E-new-engine.prof -import-trace $R/E-new-import.trace
gc base E-base-packed16-b256
gc new E-new-hoste12 -host-e12
gc new E-new-again
gc base E-base-again
step done
