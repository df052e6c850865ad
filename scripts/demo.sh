#!/usr/bin/env bash
# demo.sh is the main job of `make demo` (run after scripts/setup.sh built
# bin/cgraph and installed the models): it creates a fresh store, adds the
# bundled sample memories (each gets its fingerprint from the installed
# embedders), shows the embedder slots, the profiles, one memory with its
# fingerprint, and ends with real searches over the samples: a causal query
# with --explain, and one through the five-stage pipeline. The store is kept
# so you can explore it; its path is printed at the end.
#   CGRAPH_DEMO_DIR=DIR  use DIR for the store (must be new or empty)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=./bin/cgraph
[ -x "$bin" ] || { echo "demo: $bin is missing: run make setup (or make build) first" >&2; exit 1; }
db="${CGRAPH_DEMO_DIR:-$(mktemp -d -t cgraph-demo.XXXXXX)/store}"
# cg echoes the command (arguments with spaces in double quotes) and runs it.
cg() {
	local shown=()
	for a in "$@"; do [[ $a == *" "* ]] && shown+=("\"$a\"") || shown+=("$a"); done
	echo "\$ cgraph ${shown[*]}"
	"$bin" --db "$db" "$@"
	echo
}

cg init --samples
cg embedders
cg list --limit 5
# awk reads to the end: leaving early would kill list with SIGPIPE (pipefail).
id=$("$bin" --db "$db" list --limit 100 | awk '$4 == "error" && id == "" { id = $1 } END { print id }')
[ -n "$id" ] || { echo "demo: no error memory among the samples" >&2; exit 1; }
cg get "$id" --fingerprint
cg stats
cg profiles
cg search "why did the build fail" --profile causal_reasoning --explain --top-k 3
cg search "what happens when a RocksDB column family handle outlives the DB" --mode pipeline --profile pipeline_full --top-k 5
echo "demo: store kept at $db — try: $bin --db $db search \"QUERY\" --profile code_search, or add your own with $bin --db $db add \"TEXT\""
