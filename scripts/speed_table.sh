#!/usr/bin/env bash
# Regenerates docs/BENCHMARKS.md's speed table (between the speed-table markers) from
# one series of runs on this machine, every figure beside the baseline
# measured in the same run:
#
#   end    end-to-end search on the Go set (bench-out/sets/csn-go-2000, 500
#          queries): e1_only, multi_space:semantic_search and
#          pipeline:pipeline_full, each in its own process, two rounds
#          alternating, with the ratio to e1_only of the same round;
#   100k   search after encoding at 100k memories (engine BenchmarkSearch):
#          e1_only, multi_space, pipeline against exact scans, RAM per memory;
#   encode query views in one pass per model against one run per slot
#          (BenchmarkQueryViews), full fingerprints against the sum of the
#          per-model encode times (BenchmarkIngestLimit);
#   write  scripts/write_latency.sh (bulk ingest, POST /v1/memories);
#   ann    dense recall@10 at 100k on real vectors: CGRAPH_VECTORS_DIR names
#          embedgen output (indexes/real_test.go); without it docs/BENCHMARKS.md is
#          left alone, since the table would lack those rows.
#
#   CGRAPH_VECTORS_DIR=DIR bash scripts/speed_table.sh   # all parts: ~12 min on 2 cores
#   PARTS="end encode" bash scripts/speed_table.sh
#   NO_README=1 bash scripts/speed_table.sh     # print the table only
#
# Raw outputs stay in bench-out/speed/. The machine is shared: the load
# average is printed before and after every part and goes into the table.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTS=${PARTS:-end 100k encode write ann}
OUT=bench-out/speed
SET=${SET:-bench-out/sets/csn-go-2000}
STORE=${STORE:-bench-out/stores/csn-go-2000}
mkdir -p "$OUT"
make -s build >/dev/null
bin=./bin/cgraph
rows=()
load() { uptime | sed 's/.*load average: //; s/,.*//'; }
row() { rows+=("| $1 | $2 | $3 | $4 |"); }
has() { [[ " $PARTS " == *" $1 "* ]]; }
# metric prints the value before the unit $2 on a go test -bench line $1.
metric() { awk -v u="$2" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$1" | head -1; }
# median prints the median of numbers on stdin, one per line.
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'; }

if has end; then
  [ -f "$SET/queries.jsonl" ] || { echo "speed_table: $SET is missing: run docs/bench/run.sh first" >&2; exit 1; }
  [ -d "$STORE" ] || { echo "speed_table: $STORE is missing: run docs/bench/run.sh first" >&2; exit 1; }
  # A copy: the bench opens the store for writing, which must not touch the shared one.
  rm -rf "$OUT/store" && cp -r "$STORE" "$OUT/store" && cp "$STORE.bench.json" "$OUT/store.bench.json" 2>/dev/null || true
  l0=$(load)
  for round in 1 2; do
    for r in e1_only multi_space:semantic_search pipeline:pipeline_full; do
      mode=${r%%:*}; prof=${r#*:}; [ "$mode" = "$r" ] && prof=semantic_search
      $bin --json bench run --data "$SET" --store "$OUT/store" --max-queries 500 --seed 1 --no-baselines \
        --modes "$mode" --profiles "$prof" --out "$OUT/end-$round-$mode" >"$OUT/end-$round-$mode.json" 2>/dev/null
    done
  done
  l1=$(load)
  for round in 1 2; do
    e1=$OUT/end-$round-e1_only.json
    e95=$(jq '.runs[0].latency_ms.p95' "$e1"); e50=$(jq '.runs[0].latency_ms.p50' "$e1")
    enc=$(jq -r '.runs[0].stages[] | select(.stage == "encode") | "\(.latency_ms.p50) \(.latency_ms.p95)"' "$e1")
    for mode in multi_space pipeline; do
      f=$OUT/end-$round-$mode.json
      read -r p50 p95 nd <<<"$(jq -r '.runs[0] | "\(.latency_ms.p50) \(.latency_ms.p95) \(.metrics["ndcg@10"])"' "$f")"
      read -r c50 c95 <<<"$(jq -r '.runs[0].stages[] | select(.stage == "encode") | "\(.latency_ms.p50) \(.latency_ms.p95)"' "$f")"
      s4=$(jq -r '[.runs[0].stages[] | select(.stage == "S4 rerank") | .latency_ms.p50] | first // empty' "$f")
      row "end to end, 2,000 Go docs, $(jq -r '.runs[0].name' "$f") (round $round)" \
        "$(printf 'p50 %.1f / p95 %.1f ms (encode %.1f / %.1f%s); nDCG@10 %.3f' "$p50" "$p95" "$c50" "$c95" "${s4:+, S4 p50 $(printf %.1f "$s4")}" "$nd")" \
        "$(printf 'e1_only p50 %.1f / p95 %.1f ms (encode %.1f / %.1f): **%.1f× at p95**, %.1f× at p50' "$e50" "$e95" $enc "$(awk -v a="$p95" -v b="$e95" 'BEGIN{print a/b}')" "$(awk -v a="$p50" -v b="$e50" 'BEGIN{print a/b}')")" \
        "load $l0 → $l1"
    done
  done
  rm -rf "$OUT/store" "$OUT/store.bench.json"
fi

if has 100k; then
  l0=$(load)
  CGRAPH_MEMORY_BENCH=100k go test ./engine -run XXX -bench 'BenchmarkSearch$/100k/(ram|e1_only|multi_space|pipeline)$' \
    -benchtime 100x -timeout 90m >"$OUT/100k.txt" 2>&1 || { tail -20 "$OUT/100k.txt" >&2; exit 1; }
  l1=$(load)
  ram=$(metric "$(grep '100k/ram' "$OUT/100k.txt")" B/memory)
  row "RAM of all in-memory indexes, 100k memories" "$(awk -v b="$ram" 'BEGIN{printf "%.2f KB per memory", b/1000}')" "goal ≤ 6 KB" "load $l0 → $l1"
  for m in e1_only multi_space pipeline; do
    line=$(grep -E "100k/$m-" "$OUT/100k.txt" | head -1)
    # the last stages line: the first is from the one-iteration warm-up
    stages=$(grep -A3 -E "100k/$m-" "$OUT/100k.txt" | grep -o 'stages: .*' | tail -1 | sed 's/stages: //; s/ p50//g' || true)
    row "search after encoding, 100k memories, \`$m\`" \
      "$(printf 'p50 %.2f / p95 %.2f ms; keeps %.3f of the exact top 10' "$(metric "$line" p50-ms)" "$(metric "$line" p95-ms)" "$(metric "$line" top10-overlap)")${stages:+ (p50 by stage: $stages)}" \
      "$(printf 'exact scans p50 %.1f / p95 %.1f ms' "$(metric "$line" exact-p50-ms)" "$(metric "$line" exact-p95-ms)")" "load $l0 → $l1"
  done
  e2e() { grep -E "100k/$1/end_to_end" "$OUT/100k.txt" | head -1; }
  base=$(e2e e1_only)
  for m in multi_space pipeline; do
    line=$(e2e $m)
    row "end to end at 100k memories (\`Engine.Search\`, query encoding included), \`$m\`" \
      "$(printf 'p50 %.1f / p95 %.1f ms (encode p50 %.1f)' "$(metric "$line" p50-ms)" "$(metric "$line" p95-ms)" "$(metric "$line" encode-p50-ms)")" \
      "$(printf 'e1_only p50 %.1f / p95 %.1f ms (encode p50 %.1f): %.1f× at p95' "$(metric "$base" p50-ms)" "$(metric "$base" p95-ms)" "$(metric "$base" encode-p50-ms)" "$(awk -v a="$(metric "$line" p95-ms)" -v b="$(metric "$base" p95-ms)" 'BEGIN{print a/b}')")" \
      "load $l0 → $l1"
  done
fi

if has encode; then
  l0=$(load)
  go test ./embedders/neural -run '^$' -bench 'QueryViews' -benchtime 40x -count 3 >"$OUT/views.txt" 2>&1 || { tail -20 "$OUT/views.txt" >&2; exit 1; }
  go test ./embedders/neural -run '^$' -bench 'IngestLimit' -benchtime 3x -count 3 >"$OUT/ingest.txt" 2>&1 || { tail -20 "$OUT/ingest.txt" >&2; exit 1; }
  l1=$(load)
  shared=$(grep -E '^BenchmarkQueryViews/shared' "$OUT/views.txt" | awk '{print $3/1e6}' | median)
  apart=$(grep -E '^BenchmarkQueryViews/separate' "$OUT/views.txt" | awk '{print $3/1e6}' | median)
  row "all query views of \`pipeline_full\`, one doc-comment query" \
    "$(printf '%.1f ms, one pass per model' "$shared")" "$(printf '%.1f ms, one run per slot' "$apart")" "load $l0 → $l1"
  for name in $(grep '^BenchmarkIngestLimit' "$OUT/ingest.txt" | awk '{print $1}' | sort -u); do
    lines=$(grep "^$name " "$OUT/ingest.txt")
    med() { while read -r l; do metric "$l" "$1"; done <<<"$lines" | median; }
    row "full fingerprint, batch of 32, $(sed 's/-[0-9]*$//' <<<"${name#BenchmarkIngestLimit/}") ($(printf %.0f "$(med tokens/mem)") e5 tokens per memory)" \
      "$(printf '%.1f memories/s (%.2f× the time of the sum)' "$(med mem/s-full)" "$(med full/sum)")" \
      "$(printf 'the sum of the per-model encode times, one model after another, allows %.1f memories/s (other processes used %.2f cores)' "$(med mem/s-sum)" "$(med cores-others)")" \
      "load $l0 → $l1"
  done
fi

if has write; then
  l0=$(load)
  bash scripts/write_latency.sh >"$OUT/write.txt" 2>&1 || { tail -20 "$OUT/write.txt" >&2; exit 1; }
  l1=$(load)
  w=$OUT/write.txt
  row "bulk ingest, \`add --jsonl\`, $(head -1 "$w" | sed 's/;.*//')" \
    "$(grep -m1 'searchable' "$w" | grep -o 'in [0-9.]* s ([0-9.]*/s)' | sed 's/^/searchable /'), with \`--defer\`; $(grep 'every slot filled' "$w" | grep -o 'in [0-9.]* s ([0-9.]* memories/s overall)' | sed 's/^/every slot filled /')" \
    "without \`--defer\`: $(grep -m1 '^add --jsonl :.*in all' "$w" | grep -o '[0-9.]* s in all') (model loading included)" "load $l0 → $l1"
  while read -r l; do
    what=${l%%:*}; fig=${l#*: }
    row "write path: $what" "${fig%%; load*}" "–" "load $l0 → $l1"
  done < <(grep -E '^POST' "$w" | sed 's|^POST /v1/memories serve , |POST /v1/memories to a warm serve, every slot on the write, |; s|^POST /v1/memories serve --defer-slots, |POST /v1/memories to a warm serve --defer-slots, |')
fi

if has ann && [ -n "${CGRAPH_VECTORS_DIR:-}" ]; then
  l0=$(load)
  go test ./indexes -run RealEmbeddingsRecall -v -count=1 -timeout 60m >"$OUT/ann.txt" 2>&1 || { tail -20 "$OUT/ann.txt" >&2; exit 1; }
  l1=$(load)
  for c in real+copies near-duplicate-heavy; do
    at() { grep -F "$c n=100000 int8 rerank=$1 " "$OUT/ann.txt" | grep -o 'recall@10=[0-9.]*' | cut -d= -f2; }
    row "dense recall@10 against exact, int8, 100k vectors of $(basename "$CGRAPH_VECTORS_DIR"), $c" \
      "$(printf '%s at depth %s' "$(at "${CGRAPH_VECTORS_DEPTH:-2048}")" "${CGRAPH_VECTORS_DEPTH:-2048}")" \
      "$(printf 'half the depth: %s' "$(at $(( ${CGRAPH_VECTORS_DEPTH:-2048} / 2 )))")" "load $l0 → $l1"
  done
fi

table=$(
  echo "Generated by \`bash scripts/speed_table.sh\` on $(date -u +%Y-%m-%d) at commit $(git rev-parse --short HEAD) (2 shared cores; the last column is the 1-minute load before → after the part)."
  echo
  echo "| what | figure | baseline in the same run | load |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "$table"
if [ -z "${NO_README:-}" ] && [ "$PARTS" = "end 100k encode write ann" ] && [ -n "${CGRAPH_VECTORS_DIR:-}" ]; then
  grep -q '<!-- speed-table:begin -->' docs/BENCHMARKS.md || { echo "speed_table: docs/BENCHMARKS.md has no speed-table markers" >&2; exit 1; }
  awk -v t="$table" '
    /<!-- speed-table:begin -->/ {print; print t; skip = 1; next}
    /<!-- speed-table:end -->/ {skip = 0}
    !skip {print}' docs/BENCHMARKS.md >"$OUT/BENCHMARKS.md" && mv "$OUT/BENCHMARKS.md" docs/BENCHMARKS.md
  echo "docs/BENCHMARKS.md updated"
fi
