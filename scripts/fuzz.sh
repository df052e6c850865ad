#!/usr/bin/env bash
# Runs every native Go fuzz target of the module for FUZZTIME each (default
# 10s) and reports targets × time × crashes. A crasher is kept by `go test`
# in the package's testdata/fuzz/ and then replays as a regular test case.
#
#   bash scripts/fuzz.sh              # ~8 min on 2 cores
#   FUZZTIME=1m bash scripts/fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
targets=0 crashes=0
while IFS=: read -r file name; do
  pkg="./$(dirname "$file")"
  targets=$((targets + 1))
  if out=$(go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" 2>&1); then
    echo "ok    $pkg $name"
  else
    crashes=$((crashes + 1))
    echo "FAIL  $pkg $name"
    echo "$out" | tail -20
  fi
done < <(grep -rho --include='*_test.go' -l '^func Fuzz' . | grep -v '^./.deps' | while read -r f; do
  grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |$f:|"; done | sed 's|^\./||')
echo "fuzz: $targets targets × $FUZZTIME, $crashes with a crash"
[ "$crashes" -eq 0 ]
