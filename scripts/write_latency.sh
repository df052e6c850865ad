#!/usr/bin/env bash
# Write-path figures of the README ("Component figures"), with the real models:
#   1. bulk ingest of N Go functions (a prepared bench set's corpus) with and
#      without --defer: when they became searchable, when every slot was done;
#   2. POST /v1/memories one at a time to a warm `cgraph serve` (with and
#      without --defer-slots): p50 / p95 of 60 writes, the first 5 dropped,
#      for three kinds of memory, each on a fresh store and server:
#        - the first 60 Go functions of the bulk set (whole functions: long tail);
#        - Go functions of about 500 bytes (the size the latency goal names):
#          the first 60 functions of the whole corpus whose content is 400–600
#          bytes; if there are fewer, longer functions cut at the line boundary
#          nearest 500 bytes (within 400–600) make up the rest, and the output
#          says how many;
#        - 500-byte prose: consecutive sentences of PROSE (developers' changelog
#          sentences of the causal bench set) joined and cut at a word boundary
#          into memories of 490–600 bytes; skipped when PROSE is absent.
#
#   bash scripts/write_latency.sh [CORPUS.jsonl] [N]
# CORPUS defaults to bench-out/sets/csn-go-2000/corpus.jsonl (docs/bench/run.sh
# prepares it); N to 300; PROSE (environment) to
# bench-out/sets/causal-dev/corpus.jsonl. Needs jq and curl. Prints the load
# average too: the machine is shared, say it with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-bench-out/sets/csn-go-2000/corpus.jsonl}
n=${2:-300}
prose=${PROSE:-bench-out/sets/causal-dev/corpus.jsonl}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
make -s build >/dev/null
bin=./bin/cgraph
content='((.title // "") + "\n" + .text | ltrimstr("\n"))'
head -n "$n" "$corpus" | jq -c "{content: $content}" >"$tmp/docs.jsonl"
echo "$(wc -l <"$tmp/docs.jsonl") documents, $(jq -r '.content | length' "$tmp/docs.jsonl" | awk '{s+=$1} END {printf "%.0f", s/NR}') bytes on average; $(uptime | sed 's/.*load/load/')"

# sizes FILE: the mean and range of the contents' lengths in bytes.
sizes() {
  jq -r '.content | utf8bytelength' "$1" | awk '{s+=$1; if (NR==1||$1<lo) lo=$1; if ($1>hi) hi=$1} END {printf "%d memories of %.0f bytes on average (%d–%d)", NR, s/NR, lo, hi}'
}

head -n 60 "$tmp/docs.jsonl" >"$tmp/post-go.jsonl"
jq -nc "limit(60; inputs | $content | select(utf8bytelength >= 400 and utf8bytelength <= 600) | {content: .})" "$corpus" >"$tmp/post-go500.jsonl"
whole=$(wc -l <"$tmp/post-go500.jsonl")
if [ "$whole" -lt 60 ]; then
  jq -nc --argjson need $((60 - whole)) "limit(\$need; inputs | $content | select(utf8bytelength > 600)
    | split(\"\n\") as \$ls | [range(1; \$ls | length) | \$ls[:.] | join(\"\n\")]
    | map(select(utf8bytelength >= 400 and utf8bytelength <= 600))
    | select(length > 0) | min_by((utf8bytelength - 500) | fabs) | {content: .})" "$corpus" >>"$tmp/post-go500.jsonl"
fi
echo "Go functions ~500 B: $(sizes "$tmp/post-go500.jsonl"); $whole whole functions of 400–600 bytes, $(($(wc -l <"$tmp/post-go500.jsonl") - whole)) longer ones cut at the line boundary nearest 500 bytes"
sets="go go500"
if [ -f "$prose" ]; then
  jq -nc '[inputs | .text | rtrimstr(".")] | join(". ") | split(" ")
    | reduce .[] as $w ({cur: "", out: []};
        (if .cur == "" then $w else .cur + " " + $w end) as $n
        | if ($n | utf8bytelength) >= 490 then .out += [$n] | .cur = "" else .cur = $n end)
    | .out[:60][] | {content: .}' "$prose" >"$tmp/post-prose.jsonl"
  echo "prose ~500 B: $(sizes "$tmp/post-prose.jsonl") from $prose"
  sets="$sets prose"
else
  echo "prose ~500 B: skipped ($prose is absent; set PROSE)"
fi

for defer in "" --defer; do
  $bin --db "$tmp/bulk$defer" init >/dev/null
  start=$(date +%s.%N)
  $bin --db "$tmp/bulk$defer" add --jsonl "$tmp/docs.jsonl" $defer 2>&1 | sed "s/^/add --jsonl $defer: /"
  echo "add --jsonl $defer: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s in all (model loading included)"
done

declare -A label=([go]="Go functions (whole)" [go500]="Go functions ~500 B" [prose]="prose ~500 B")
for set in $sets; do
  for defer in "" --defer-slots; do
    db="$tmp/serve-$set$defer"
    $bin --db "$db" init >/dev/null
    $bin --db "$db" serve --addr 127.0.0.1:0 $defer 2>"$tmp/serve.log" &
    pid=$!
    for _ in $(seq 100); do grep -q 'on http://' "$tmp/serve.log" && break; sleep 0.1; done
    url=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" | head -1)
    avg=$(jq -r '.content | utf8bytelength' "$tmp/post-$set.jsonl" | awk '{s+=$1} END {printf "%.0f", s/NR}')
    res=$(while read -r line; do
      curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/json' -d "$line" "$url/v1/memories" || true
    done <"$tmp/post-$set.jsonl" | tail -n +6 | sort -k2 -n |
      awk -v m="serve $defer" -v what="${label[$set]}" -v avg="$avg" \
        '$1 != 201 {bad++; next} {t[++k]=$2*1000} END {printf "POST /v1/memories %s, %s (%d B on average): p50 %.1f ms, p95 %.1f ms (%d writes%s)", m, what, avg, t[int(k*0.5)+1], t[int(k*0.95)+1], k, bad ? sprintf(", %d FAILED", bad) : ""}')
    echo "$res; $(uptime | sed 's/.*load/load/')"
    kill "$pid"; wait "$pid" 2>/dev/null || true
  done
done
