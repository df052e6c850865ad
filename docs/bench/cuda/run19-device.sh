#!/usr/bin/env bash
# Device call 2 (issue 33, tenth session, run 19; call 1 found the packed
# files refused by the CPU session that read their signature): packed fp16 models (padding
# removed: RemovePadding + PackedAttention, scripts/fp16/fuse.py fp16 packed)
# against the fused raw-mask fp16 files (--precision fp16) and the fp32
# defaults, in one call; and PyTorch's floor for the same shapes
# (docs/bench/cuda/floor.py).
set -uo pipefail
F=$PWD/.gpu/final
R=/root/res; mkdir -p $R
step() { echo "=== $(date +%T) $*"; }
step unpack
C=/root/.cache/cgraph; mkdir -p $C/onnxruntime-gpu/1.31.1 $C/models /root/u
cat /root/stage/p* | LD_LIBRARY_PATH=$F/libfb $F/bin/zstd -d -q | tar -x -C /root/u || { echo "unpack failed"; ls -la /root/stage; exit 1; }
cp -a /root/u/ort/. $C/onnxruntime-gpu/1.31.1/ && cp -a /root/u/m32/. $C/models/ && cp -a /root/u/fzp $C/models/cuda-fp16 || echo "copy failed"
PK=/root/u/pk
tar xzf $F/bins.tgz -C $F
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export LD_LIBRARY_PATH=$F/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:$F/libfb
eval "$(bash scripts/setup_cuda.sh 2>$R/setup.err)"; echo "setup rc=$?"
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used --format=csv,noheader,nounits -lms 200 >$R/smi.csv 2>/dev/null &
SMI=$!
gc() { # NAME EXTRA...
	local name=$1; shift
	step "$name"; echo "$name $(date +%s.%N)" >> $R/marks.txt
	timeout 120 $F/new/gpucheck -gpu-docs 2000 -cpu-docs 64 -queries 100 -slot-docs 0 -import-batches 256 -import-inflight 3 \
		-corpus $F/corpus.jsonl -out $R/$name.json "$@" > $R/$name.log 2>&1; echo "rc=$?"
	echo "$name-end $(date +%s.%N)" >> $R/marks.txt
	grep -E 'worst|p50|docs/s|registry|add --jsonl|engine|at once|gpucheck:|failed' $R/$name.log | head -40
}
P16="-models-dir $PK -manifest $PK/manifest.json -reference-models-dir $C/models"
R16="-models-dir $C/models/cuda-fp16 -manifest $C/models/cuda-fp16/manifest.json -reference-models-dir $C/models"
gc C-packed16 $P16
gc A-fp32 -devices cuda
gc B-rawmask16 $R16 -devices cuda
gc C2-packed16-again $P16 -devices cuda
gc D-packed16-b256 $P16 -devices cuda -batch 256
step embedders
mkdir -p /root/pkm && ln -s $PK /root/pkm/cuda-fp16 && for d in $C/models/e5-small-v2 $C/models/bge-small-en-v1.5 $C/models/all-minilm-l6-v2; do ln -s $d /root/pkm/; done
CGRAPH_MODELS=/root/pkm timeout 60 $F/new/cgraph --db /root/nostore --device cuda --precision fp16 embedders > $R/embedders-packed.txt 2>&1; echo "rc=$?"; head -20 $R/embedders-packed.txt
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
tar czf $OUT/all.tgz -C $R . 2>/dev/null
step done
