#!/usr/bin/env bash
# Write-path figures of the README ("Component figures"), with the real models:
#   1. bulk ingest of N Go functions (a prepared bench set's corpus) with and
#      without --defer: when they became searchable, when every slot was done;
#   2. POST /v1/memories one at a time to a warm `cgraph serve` (with and
#      without --defer-slots): p50 / p95 of 60 writes, the first 5 dropped.
#
#   bash scripts/write_latency.sh [CORPUS.jsonl] [N]
# CORPUS defaults to bench-out/sets/csn-go-2000/corpus.jsonl (docs/bench/run.sh
# prepares it); N to 300. Needs jq and curl. Prints the load average too: the
# machine is shared, say it with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-bench-out/sets/csn-go-2000/corpus.jsonl}
n=${2:-300}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
make -s build >/dev/null
bin=./bin/cgraph
head -n "$n" "$corpus" | jq -c '{content: ((.title // "") + "\n" + .text | ltrimstr("\n"))}' >"$tmp/docs.jsonl"
echo "$(wc -l <"$tmp/docs.jsonl") documents, $(jq -r '.content | length' "$tmp/docs.jsonl" | awk '{s+=$1} END {printf "%.0f", s/NR}') bytes on average; $(uptime | sed 's/.*load/load/')"
for defer in "" --defer; do
  $bin --db "$tmp/bulk$defer" init >/dev/null
  start=$(date +%s.%N)
  $bin --db "$tmp/bulk$defer" add --jsonl "$tmp/docs.jsonl" $defer 2>&1 | sed "s/^/add --jsonl $defer: /"
  echo "add --jsonl $defer: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s in all (model loading included)"
done
for defer in "" --defer-slots; do
  db="$tmp/serve$defer"
  $bin --db "$db" init >/dev/null
  $bin --db "$db" serve --addr 127.0.0.1:0 $defer 2>"$tmp/serve.log" &
  pid=$!
  for _ in $(seq 100); do grep -q 'on http://' "$tmp/serve.log" && break; sleep 0.1; done
  url=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" | head -1)
  head -n 60 "$tmp/docs.jsonl" | while read -r line; do
    curl -s -o /dev/null -w '%{time_total}\n' -H 'Content-Type: application/json' -d "$line" "$url/v1/memories"
  done | tail -n +6 | sort -n | awk -v m="serve $defer" '{t[NR]=$1*1000} END {printf "POST /v1/memories %s: p50 %.1f ms, p95 %.1f ms (%d writes)\n", m, t[int(NR*0.5)+1], t[int(NR*0.95)+1], NR}'
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
