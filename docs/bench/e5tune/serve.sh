# a `cgraph serve` after five searches (default profile) on a fresh samples store: VmRSS and VmHWM, HEAD aa47f10's binary (h19) against this change (e5s)
cd /work/bo
for b in h19 e5s; do
  rm -rf /tmp/serve19 && cp -r /tmp/rss19src /tmp/serve19
  ./cgraph-$b --db /tmp/serve19 serve --addr 127.0.0.1:18719 > /tmp/serve19-$b.log 2>&1 &
  pid=$!
  for i in $(seq 1 100); do curl -sf http://127.0.0.1:18719/healthz > /dev/null && break; sleep 0.2; done
  for q in "why did the build fail" "how is the cache invalidated" "parse the config file" "what port does the server use" "retry the embedding batch"; do
    curl -sf -X POST -H 'Content-Type: application/json' -d "{\"query\": \"$q\"}" http://127.0.0.1:18719/v1/search > /dev/null || echo "search failed"
  done
  echo "$b $(grep -E 'VmRSS|VmHWM' /proc/$pid/status | tr -s ' ' | tr '\n' ' ')"
  kill $pid; wait $pid 2>/dev/null
done
