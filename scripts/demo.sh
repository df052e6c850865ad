#!/usr/bin/env bash
# demo.sh is the main job of `make demo` (run after scripts/setup.sh built
# bin/cgraph): it creates a fresh store, adds the bundled sample memories,
# lists them and shows one memory and the store's size. The store is kept so
# you can explore it; its path is printed at the end.
#   CGRAPH_DEMO_DIR=DIR  use DIR for the store (must be new or empty)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=./bin/cgraph
[ -x "$bin" ] || { echo "demo: $bin is missing: run make setup (or make build) first" >&2; exit 1; }
db="${CGRAPH_DEMO_DIR:-$(mktemp -d -t cgraph-demo.XXXXXX)/store}"
cg() { echo "\$ cgraph $*"; "$bin" --db "$db" "$@"; echo; }

cg init --samples
cg list --limit 10
id=$("$bin" --db "$db" list --limit 100 | awk '$4 == "error" { print $1; exit }')
[ -n "$id" ] || { echo "demo: no error memory among the samples" >&2; exit 1; }
cg get "$id"
cg stats
echo "demo: store kept at $db — try: $bin --db $db list --oldest, or add your own with $bin --db $db add \"TEXT\""
