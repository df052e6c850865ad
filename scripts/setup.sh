#!/usr/bin/env bash
# setup.sh installs everything cgraph needs on a fresh Debian machine of the
# project's kind and is quick and harmless to re-run:
#   1. Debian packages: librocksdb-dev (RocksDB 7.8.3, matched by grocksdb v1.7.15).
#   2. The ONNX Runtime shared library 1.30.0, taken from the npm package
#      onnxruntime-node (its install script is never run) and checked by sha256.
#   3. Go modules, and the cgraph binary in ./bin.
#   4. Model weights of the default set, through `cgraph models pull --default`.
#   5. The MCP Inspector CLI (npm, project-local under .deps/) for the MCP e2e check.
# Everything downloaded goes under $CGRAPH_CACHE (default ~/.cache/cgraph).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${CGRAPH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cgraph}"
ORT_VERSION=1.30.0
ORT_SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
ORT_DIR="$CACHE/onnxruntime/$ORT_VERSION"
ORT_LIB="$ORT_DIR/libonnxruntime.so.1"

log() { printf 'setup: %s\n' "$*" >&2; }

# 1. Debian packages.
need_apt=()
dpkg -s librocksdb-dev >/dev/null 2>&1 || need_apt+=(librocksdb-dev)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
if ((${#need_apt[@]})); then
	log "installing Debian packages: ${need_apt[*]}"
	sudo_cmd=()
	[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
	"${sudo_cmd[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# 2. ONNX Runtime from its npm package.
sha_ok() { [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status; }
if ! sha_ok "$ORT_LIB" "$ORT_SHA256"; then
	log "fetching ONNX Runtime $ORT_VERSION (npm onnxruntime-node, library only)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null)
	tar -xzf "$tmp/onnxruntime-node-$ORT_VERSION.tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	mkdir -p "$ORT_DIR"
	mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$ORT_LIB.part"
	sha_ok "$ORT_LIB.part" "$ORT_SHA256" || { log "sha256 mismatch for $ORT_LIB.part"; exit 1; }
	mv "$ORT_LIB.part" "$ORT_LIB"
fi

# 3. Go modules and the binary.
go mod download
mkdir -p bin
# Stamped as make build stamps it, so bench reports name the commit even
# where the toolchain's VCS stamp is missing (a worktree, -buildvcs=false).
go build -ldflags "-X github.com/cgraph/cgraph/engine.Version=cgraph-dev+$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" -o bin/cgraph ./cmd/cgraph

# 4. Models (the default set for this machine), when the command exists. Without
#    the Hugging Face hub they come from Maven Central jars, fetched with mvn
#    (Debian package maven). Already-installed models are checked and skipped.
if ./bin/cgraph models --help >/dev/null 2>&1; then
	if ! command -v mvn >/dev/null 2>&1; then
		log "installing Debian package maven (fetches the model jars)"
		sudo_cmd=()
		[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
		"${sudo_cmd[@]}" apt-get update -qq
		DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq maven >/dev/null
	fi
	./bin/cgraph models pull --default
fi
# 5. The MCP Inspector CLI for the MCP end-to-end check (scripts/mcp_inspector.sh),
#    project-local under .deps/ (git-ignored); skipped without npm.
INSPECTOR_VERSION=2.12.0
if command -v npm >/dev/null 2>&1 && ! grep -qs "\"version\": \"$INSPECTOR_VERSION\"" .deps/mcp-inspector/node_modules/@modelcontextprotocol/inspector/package.json; then
	log "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .deps/mcp-inspector"
	mkdir -p .deps/mcp-inspector
	npm install --prefix .deps/mcp-inspector --no-audit --no-fund --silent "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2
fi
log "ready: bin/cgraph (ONNX Runtime at $ORT_LIB)"
