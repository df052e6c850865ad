#!/usr/bin/env bash
# hook_latency.sh times `cgraph hook claude-code SessionStart` as Claude Code
# runs it (a process per event, the event JSON on stdin) on a samples store:
# N runs beside a warm `cgraph serve`, then N with CGRAPH_NO_SERVER=1 (the
# hook then opens the store's records itself), and a bare `cgraph --version`
# as the process-start baseline of the same run. Prints p50/p95 in ms and
# the load average before and after.
#   N=40 bash scripts/hook_latency.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-40}
bin=${CGRAPH:-bin/cgraph}
go build -o "$bin" ./cmd/cgraph
dir=$(mktemp -d -t cgraph-hook.XXXXXX)
trap 'kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null; rm -rf "$dir"' EXIT
db="$dir/store"
"$bin" --db "$db" init --samples >/dev/null 2>&1
event='{"session_id":"bench","cwd":"/","hook_event_name":"SessionStart","source":"startup"}'
time_runs() { # label, then the command's environment prefix
	local label=$1; shift
	local ms=()
	for _ in $(seq "$N"); do
		local t0 t1
		t0=$(date +%s%N)
		env "$@" "$bin" --db "$db" hook claude-code SessionStart <<<"$event" >/dev/null
		t1=$(date +%s%N)
		ms+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${ms[@]}" | sort -n | awk -v l="$label" -v n="$N" '{a[NR]=$1} END {printf "%-28s p50 %4d ms  p95 %4d ms  (n=%d)\n", l, a[int(n*0.5)+1], a[int(n*0.95)], n}'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin" --db "$db" serve --addr 127.0.0.1:0 >"$dir/serve.log" 2>&1 &
srv=$!
for _ in $(seq 100); do grep -q 'serving' "$dir/serve.log" && break; sleep 0.2; done
time_runs "beside cgraph serve" CGRAPH_NO_SERVER=
time_runs "without a server" CGRAPH_NO_SERVER=1
ms=()
for _ in $(seq "$N"); do t0=$(date +%s%N); "$bin" --version >/dev/null; t1=$(date +%s%N); ms+=($(((t1 - t0) / 1000000))); done
printf '%s\n' "${ms[@]}" | sort -n | awk -v n="$N" '{a[NR]=$1} END {printf "%-28s p50 %4d ms  p95 %4d ms  (n=%d)\n", "cgraph --version (baseline)", a[int(n*0.5)+1], a[int(n*0.95)], n}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
