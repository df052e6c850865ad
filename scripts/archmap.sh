#!/usr/bin/env bash
# archmap.sh prints the package map of docs/ARCHITECTURE.md from go list:
# each package of the module with the module packages it imports (tests
# not counted). engine/layers_test.go checks the rules the map shows.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/cgraph/cgraph/
go list -f '{{.ImportPath}}:{{join .Imports ","}}' ./... | while IFS=: read -r pkg deps; do
	own=()
	IFS=, read -ra all <<<"$deps"
	for d in "${all[@]}"; do
		[[ $d == "$mod"* ]] && own+=("${d#"$mod"}")
	done
	printf '%-22s → %s\n' "${pkg#"$mod"}" "${own[*]:-(none)}"
done
