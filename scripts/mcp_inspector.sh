#!/usr/bin/env bash
# mcp_inspector.sh talks to `cgraph mcp` with the npm MCP Inspector CLI
# (@modelcontextprotocol/inspector, headless --cli mode), a client written by
# the protocol's maintainers and not by us: it lists the tools, calls one and
# makes one bad call on a fresh store of the 32 samples. HOME is a temporary
# directory, so nothing of the user's is read or written but the models.
#
#   scripts/mcp_inspector.sh [path/to/cgraph]     (default: bin/cgraph)
#
# The inspector is installed into .deps/mcp-inspector by scripts/setup.sh (or
# here when missing). Exit status 0 when every check passed; the mcpserver Go
# tests run this script (TestMCPInspector).
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION=2.12.0
DEPS=.deps/mcp-inspector
INSPECTOR=$DEPS/node_modules/.bin/mcp-inspector
BIN=$(realpath "${1:-bin/cgraph}")

log() { printf 'mcp_inspector: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

if [ ! -x "$INSPECTOR" ]; then
	log "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $DEPS"
	mkdir -p "$DEPS"
	npm install --prefix "$DEPS" --no-audit --no-fund --silent "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2
fi
INSPECTOR=$(realpath "$INSPECTOR")

# The models and ONNX Runtime as the user has them, resolved before HOME moves.
cache="${CGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph}"
models="${CGRAPH_MODELS:-$cache/models}"
ort="${CGRAPH_ORT_LIB:-$cache/onnxruntime/1.30.0/libonnxruntime.so.1}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
mkdir -p "$HOME"
db="$tmp/store"
CGRAPH_ORT_LIB="$ort" "$BIN" --db "$db" --models-dir "$models" init --samples >/dev/null

# run calls the inspector on a new `cgraph mcp`; the inspector passes the
# server only the environment named with -e.
run() {
	(cd "$tmp" && "$INSPECTOR" --cli -e "CGRAPH_ORT_LIB=$ort" "$BIN" --db "$db" --models-dir "$models" mcp "$@")
}

# check WHAT EXPR: evaluates a JavaScript expression over the JSON on stdin
# (bound to d); fails with the expression when it is not true. The JSON is
# read from stdin, not passed as an argument: tools/list outgrows the
# kernel's 128 KiB limit on one argument.
check() {
	local what=$1 expr=$2
	node -e '
		const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
		if (!(eval(process.argv[1]))) { console.error(JSON.stringify(d).slice(0, 800)); process.exit(1); }
	' "$expr" || fail "$what: expected $expr"
	log "ok: $what"
}

run --method tools/list 2>"$tmp/list.err" | check "tools/list lists the 29 tools" \
	'd.tools.length === 29 && ["store_memory","update_memory","link_memories","get_related","search_memory","search_graph","search_causes","get_session_timeline","get_divergence_alerts","memory_stats","maintenance_report"].every(n => d.tools.some(t => t.name === n)) && d.tools.every(t => t.inputSchema.additionalProperties === false)'

# The core set (cgraph mcp --tools core): eight tools, the same portable schemas.
(cd "$tmp" && "$INSPECTOR" --cli -e "CGRAPH_ORT_LIB=$ort" "$BIN" --db "$db" --models-dir "$models" mcp --tools=core --method tools/list) |
	check "tools/list --tools core lists the 8 core tools" \
	'd.tools.length === 8 && ["store_memory","update_memory","link_memories","search_memory","get_context","search_recent","get_memory","delete_memory"].every(n => d.tools.some(t => t.name === n)) && d.tools.every(t => t.inputSchema.additionalProperties === false)'

if grep -qi "warning" "$tmp/list.err"; then
	cat "$tmp/list.err" >&2
	fail "the inspector warns about the tool schemas"
fi
log "ok: no schema portability warnings"

run --method tools/call --tool-name search_by_keywords --tool-arg query=WriteBatch --tool-arg top_k=3 --tool-arg explain=true |
	check "search_by_keywords finds the WriteBatch decision" \
		'!d.isError && d.structuredContent.results.length > 0 && d.structuredContent.results[0].snippet.includes("WriteBatch") && "E6" in d.structuredContent.results[0].slots'

# The inspector exits non-zero (5) when a tool answers isError: expected here.
bad=$(run --method tools/call --tool-name search_graph --tool-arg query=x --tool-arg profile=no_such_profile 2>/dev/null || true)
printf '%s' "$bad" | check "a bad profile is a tool error naming the argument and the valid values" \
		'd.isError === true && d.content[0].text.includes("\"profile\"") && d.content[0].text.includes("semantic_search")'

log "all checks passed"
