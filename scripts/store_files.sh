#!/usr/bin/env bash
# store_files.sh [N] — the store-survival measurement (table files under
# one-memory-at-a-time use), with the real binary and the installed models:
#   1. N single `cgraph add`s, each its own process, under `ulimit -n 256`,
#      printing the table-file count and the median add time every N/20 adds;
#   2. every read and write command once more under `ulimit -n 256`;
#   3. N `store_memory` calls in one `cgraph mcp` session on the same store,
#      under `ulimit -n 256` (TestStoreMemoryCallsKeepFilesBounded).
# With OLD_BIN=path/to/older/cgraph it first times 30 single adds of each
# binary, alternating, on two fresh stores (the per-add cost before/after).
# N defaults to 2000. Needs `make setup` first.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
make -s build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

texts=(
	"Decision: pin grocksdb v1.7.15 because Debian ships RocksDB 7.8.3"
	"Error: open rocksdb: Too many open files; fix: bound max_open_files"
	"Pattern: wrap errors with fmt.Errorf and %w so callers can use errors.Is"
	"The build failed due to a missing CGO_LDFLAGS for librocksdb; set it in the Makefile"
	"Conversation: the user prefers table-driven tests with testdata fixtures"
	"func (s *Store) Add(ctx context.Context, m NewMemory) (Memory, error) { return s.add(ctx, m) }"
)

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

if [ -n "${OLD_BIN:-}" ]; then
	for b in old new; do bin_path=bin/cgraph; [ $b = old ] && bin_path=$OLD_BIN; "$bin_path" --db "$work/$b" init >/dev/null; done
	: >"$work/old.ms"; : >"$work/new.ms"
	for i in $(seq 1 30); do
		for b in old new; do
			bin_path=bin/cgraph; [ $b = old ] && bin_path=$OLD_BIN
			t0=$(date +%s%N)
			"$bin_path" --db "$work/$b" add "${texts[i % ${#texts[@]}]} ($i)" >/dev/null
			ms "$t0" >>"$work/$b.ms"
		done
	done
	echo "single add, 30 each, alternating: median old $(median <"$work/old.ms") ms, new $(median <"$work/new.ms") ms;" \
		"table files old $(ls "$work/old"/*.sst 2>/dev/null | wc -l), new $(ls "$work/new"/*.sst 2>/dev/null | wc -l)"
fi

db="$work/store"
bin/cgraph --db "$db" init >/dev/null
step=$(( N / 20 > 0 ? N / 20 : 1 ))
: >"$work/add.ms"
echo "adds  table_files  log_files  median_add_ms(last $step)"
for i in $(seq 1 "$N"); do
	t0=$(date +%s%N)
	(ulimit -n 256 && exec bin/cgraph --db "$db" add "${texts[i % ${#texts[@]}]} ($i)" --session files) >/dev/null
	ms "$t0" >>"$work/add.ms"
	if (( i % step == 0 )); then
		printf '%5d  %11d  %9d  %s\n' "$i" "$(ls "$db"/*.sst 2>/dev/null | wc -l)" "$(ls "$db"/*.log 2>/dev/null | wc -l)" \
			"$(tail -n "$step" "$work/add.ms" | median)"
	fi
done
(
	ulimit -n 256
	for args in "stats" "list --limit 5" "get-first" "search build" "--read-only search build" "embedders" "check" "topics --no-save"; do
		if [ "$args" = get-first ]; then
			id=$(bin/cgraph --db "$db" --json list --limit 1 | grep -o '"id": "[^"]*"' | head -1 | cut -d'"' -f4)
			args="get $id"
		fi
		# shellcheck disable=SC2086 # args are words
		bin/cgraph --db "$db" $args >/dev/null || { echo "FAILED under ulimit -n 256: cgraph $args"; exit 1; }
	done
	echo "every command worked under ulimit -n 256 on the store of $N single adds"
)
CGRAPH_MCP_STORE_CALLS=$N CGRAPH_MCP_STORE_DB=$db go test -count=1 -timeout 4h -run '^TestStoreMemoryCallsKeepFilesBounded$' -v ./mcpserver |
	grep -E 'store_memory calls|^(ok|FAIL|---)'
