#!/usr/bin/env bash
# The README "Benchmarks" experiment: the Go standard-library code-search set
# (2,000 doc-comment → function pairs), 500 sampled queries, clean and typo
# queries. Clean: every built-in profile in multi_space and pipeline mode, the
# single slots with a model here (embedder_first) and the three baselines.
# Typos: the baselines, E5/E7/E9 and five profiles (a full typo sweep doubles
# the run time on 2 cores).
#
# A profile learned on the other 1,500 queries (profiles learn --holdout) runs
# beside the built-ins, so its figure is held out.
#
#   bash docs/bench/run.sh          # ~10 min to build the store, ~30 min of queries on 2 busy cores
#   WHAT=dev bash docs/bench/run.sh # the Python and directional sets (docs/PROFILES.md)
#
# Knobs (environment): MAX (pairs, 2000), QUERIES (evaluated queries, 500),
# STORE (store directory, built once and reused by the typo run), CGRAPH (binary),
# WHAT (go, dev or all).
set -euo pipefail
cd "$(dirname "$0")/../.."
MAX=${MAX:-2000}
QUERIES=${QUERIES:-500}
SET=${SET:-bench-out/sets/csn-go-$MAX}
STORE=${STORE:-bench-out/stores/csn-go-$MAX}
CGRAPH=${CGRAPH:-bin/cgraph}
OUT=${OUT:-docs/bench}
WHAT=${WHAT:-go}

# Reports name the commit from the binary's Go VCS stamp; builds from a git
# worktree or with GOFLAGS=-buildvcs=false carry none, so the version string
# names it too (git rev-parse, the one place outside Go that asks git).
COMMIT=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD -- || COMMIT="$COMMIT-dirty"
go build -buildvcs=auto -ldflags "-X github.com/cgraph/cgraph/engine.Version=cgraph-dev+$COMMIT" -o "$CGRAPH" ./cmd/cgraph

run() { # name, then bench run flags
  local q=$1; shift
  mkdir -p "$OUT/$q" "bench-out/$q"
  "$CGRAPH" --json bench run --data "$SET" --max-queries "$QUERIES" --seed 1 --store "$STORE" \
    --out "bench-out/$q" --run-out "bench-out/$q/runs" "$@" >"$OUT/$q/summary.json"
  # report.json (per-query results, 5-15 MB) and the TREC run files stay in
  # bench-out/; the summary, the Markdown report and the plots are committed.
  cp "bench-out/$q/report.md" "bench-out/$q/quality.svg" "bench-out/$q/latency.svg" "$OUT/$q/"
}
learn() { # output file, then profiles learn flags
  "$CGRAPH" --json profiles learn --data "$SET" --store "$STORE" --holdout "$QUERIES" --seed 1 --out "$@" >/dev/null
}

if [ "$WHAT" = dev ] || [ "$WHAT" = all ]; then
  # Python standard library: the same recipe as Go.
  SET=bench-out/sets/csn-py-$MAX STORE=bench-out/stores/csn-py-$MAX
  "$CGRAPH" bench prepare csn-python --src /usr/lib/python3.11 --out "$SET" --typos --max "$MAX" --seed 1
  learn bench-out/learned-py.toml --base pipeline_full
  run py --profiles semantic_search,code_search,causal_reasoning,pipeline_full,typo_tolerant,bench-out/learned-py.toml \
    --modes e1_only,multi_space,pipeline,embedder_first --embedders E5,E7,E8,E9,E10,E11
  run py-typos --queries queries-typos.jsonl --profiles semantic_search,code_search,typo_tolerant \
    --modes e1_only,multi_space,pipeline
  # Directional prose: cause sentence -> its effect (embedders/neural/testdata/causalgen).
  SET=bench-out/sets/causal-dev STORE=bench-out/stores/causal-dev
  [ -f "$SET/queries.jsonl" ] || (cd embedders/neural/testdata/causalgen && go run . -all -beir "../../../../$SET" >/dev/null)
  run causal --direction effects --profiles semantic_search,causal_reasoning,pipeline_full \
    --modes e1_only,multi_space,pipeline,embedder_first --embedders E5,E7,E10
  python3 docs/bench/table.py --dev "$OUT/py/summary.json" "$OUT/py-typos/summary.json" "$OUT/causal/summary.json"
  [ "$WHAT" = dev ] && exit 0
  SET=bench-out/sets/csn-go-$MAX STORE=bench-out/stores/csn-go-$MAX
fi

"$CGRAPH" bench prepare csn-go --src "$(go env GOROOT)/src" --out "$SET" --typos --max "$MAX" --seed 1
learn bench-out/learned-go.toml --base pipeline_full
run clean --profiles all,bench-out/learned-go.toml --modes e1_only,multi_space,pipeline,embedder_first --embedders E5,E7,E8,E9,E10,E11
run typos --queries queries-typos.jsonl --profiles typo_tolerant,semantic_search,code_search,pipeline_full,balanced \
  --modes e1_only,multi_space,pipeline,embedder_first --embedders E5,E7,E9

# Every space earns its place? Each weighted slot removed in turn, paired against the whole.
"$CGRAPH" --json bench ablate --data "$SET" --store "$STORE" --profile pipeline_full --max-queries "$QUERIES" --seed 1 >"$OUT/ablate-pipeline_full.json"
"$CGRAPH" --json bench ablate --data "$SET" --store "$STORE" --profile code_search --mode multi_space --max-queries "$QUERIES" --seed 1 >"$OUT/ablate-code_search.json"
python3 docs/bench/table.py --ablate "$OUT/ablate-pipeline_full.json" "$OUT/ablate-code_search.json"

"$CGRAPH" bench compare bench-out/clean/report.json bench-out/clean/report.json --run e1_only --run-b multi_space:pipeline_stage2_scoring
"$CGRAPH" bench compare bench-out/clean/report.json bench-out/typos/report.json --run pipeline:typo_tolerant
python3 docs/bench/table.py "$OUT/clean/summary.json" "$OUT/typos/summary.json"
