#!/usr/bin/env bash
# The long crash soak: RUNS rounds (default 100) of SIGKILL during writes to a
# `cgraph serve` (two writers, a deleter and an updater-linker over the HTTP
# API), each followed by `check` and a comparison with every acknowledged
# store, delete, update and link.
# Prints "crash soak (seed S): N runs, C clean, L acknowledged operations lost".
#
#   bash scripts/soak.sh            # ~4 min on 2 cores
#   RUNS=20 SEED=7 bash scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CGRAPH_SOAK_RUNS=${RUNS:-100} CGRAPH_SOAK_SEED=${SEED:-1} \
  go test ./cli -run '^TestCrashSoak$' -count 1 -timeout 60m -v | grep -E 'crash soak|round .*(lost|acknowledged, but|update)|FAIL|^ok'
