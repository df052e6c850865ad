#!/usr/bin/env bash
# Run 25 (issue 33, thirteenth session, 2026-11-27): the call after run 24
# on the same warm H100, its staging in place (run24.sh): seven more runs
# of new/ (c083555) and newB/ (its shared ForEach helper budget), with and
# without two sessions per model, for the spread. Results run25-*.json.
F=$PWD/.gpu/final; tar xzf $F/bins.tgz -C $F
R=/root/res3; mkdir -p $R; C=/root/.cache/cgraph; PK=/root/u/pk
export LD_LIBRARY_PATH=$F/lib:$F/libfb; eval "$(bash scripts/setup_cuda.sh 2>/dev/null)"
gc() {
	local bin=$1 name=$2; shift 2; echo "=== $name"
	timeout 40 $F/$bin/gpucheck -gpu-docs 2000 -cpu-docs 64 -queries 100 -slot-docs 0 -overlap=false \
		-import-batches 256 -import-inflight 1,3 -corpus $F/corpus.jsonl -out $R/$name.json \
		-models-dir $PK -manifest $PK/manifest.json -reference-models-dir $C/models -devices cuda -batch 256 "$@" > $R/$name.log 2>&1
	echo rc=$?; grep -E 'registry  |engine  |in flight' $R/$name.log | cut -c1-75; tar czf $OUT/all3.tgz -C $R .
}
gc new H1-new; gc new H2-new-s2 -sessions 2; gc newB H3-newB-s2 -sessions 2; gc new H4-new
gc new H5-new-s2 -sessions 2; gc newB H6-newB-s2 -sessions 2; gc new H7-new-s2 -sessions 2
