#!/usr/bin/env bash
# Run 23 (issue 33, thirteenth session, 2026-11-27): the call after run 22
# on the same warm H100, its staging still in place (run22-plan.sh): eight
# more gpucheck runs alternating the new binaries (HEAD 466e3c7), the same
# with -host-e12 (E12 projected on the host: the in-graph projection's A/B)
# and the base (c596411), for the spread of each. Results run23-*.json.
F=$PWD/.gpu/final; tar xzf $F/bins.tgz -C $F
R=/root/res2; mkdir -p $R; C=/root/.cache/cgraph; PK=/root/u/pk
export LD_LIBRARY_PATH=$F/lib:$F/libfb; eval "$(bash scripts/setup_cuda.sh 2>/dev/null)"
gc() {
	local bin=$1 name=$2; shift 2; echo "=== $name"
	timeout 100 $F/$bin/gpucheck -gpu-docs 2000 -cpu-docs 64 -queries 100 -slot-docs 0 -overlap=false \
		-import-batches 256 -import-inflight 1,3 -corpus $F/corpus.jsonl -out $R/$name.json \
		-models-dir $PK -manifest $PK/manifest.json -reference-models-dir $C/models -devices cuda -batch 256 "$@" > $R/$name.log 2>&1
	echo rc=$?; grep -E 'E12 proj|registry  |engine  |3 in flight' $R/$name.log; tar czf $OUT/all2.tgz -C $R .
}
gc new F1-new; gc new F2-hoste12 -host-e12; gc base F3-base; gc new F4-new
gc new F5-hoste12 -host-e12; gc base F6-base; gc new F7-new; gc new F8-hoste12 -host-e12
