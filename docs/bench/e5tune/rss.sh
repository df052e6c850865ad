# one-shot `cgraph search` on the demo store, default profile, HEAD aa47f10's binary (h19) against this change (e5s), alternated, 7 pairs
cd /work/bo
rm -rf /tmp/rss19 && cp -r /tmp/rss19src /tmp/rss19
./cgraph-h19 --db /tmp/rss19 search "why does the cache fail when the server restarts" > /dev/null 2>&1
for i in 1 2 3 4 5 6 7; do
  for b in h19 e5s; do
    /usr/bin/time -f "$b %e %U %S %M" ./cgraph-$b --db /tmp/rss19 search "how do I parse the configuration file $i" > /dev/null 2>> rss19.txt.tmp
    tail -1 rss19.txt.tmp >> rss19.txt
  done
done
rm -f rss19.txt.tmp
python3 - <<'P'
import statistics as st
rows=[l.split() for l in open('/work/bo/rss19.txt')]
for b in ('h19','e5s'):
    r=[x for x in rows if x[0]==b]
    print(b, 'wall', st.median(float(x[1]) for x in r), 'cpu', st.median(float(x[2])+float(x[3]) for x in r), 'peak MiB', st.median(int(x[4]) for x in r)/1024)
P
