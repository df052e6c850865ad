# nineteenth session: E5's queries through a code-tuned bge (B = this tree's binary as cgraph-e5s) against HEAD aa47f10's (cgraph-h19), on the E7 v2 stores; run in the bench folder (sets/, stores/)
P="--max-queries 500 --seed 1 --modes pipeline,multi_space --profiles code_search,auto"
for s in ${SETS:-go py java js rust php}; do
  for b in h19 e5s; do
    [ -f s19-$b-$s/report.json ] || ./cgraph-$b --json bench run --data sets/$s --store stores/$s-e7h --out s19-$b-$s $P > /dev/null 2>s19-$b-$s.err
  done
  date
done
C="--max-queries 500 --seed 1 --modes pipeline,multi_space --profiles causal_reasoning,semantic_search,auto --direction effects"
for b in h19 e5s; do
  [ -f s19-$b-causal/report.json ] || ./cgraph-$b --json bench run --data sets/causal --store stores/causal-e7h --out s19-$b-causal $C > /dev/null 2>s19-$b-causal.err
done
for b in h19 e5s; do
  [ -f s19-$b-causal-other/report.json ] || ./cgraph-$b --json bench run --data sets/causal-other --store stores/causal-other --out s19-$b-causal-other $C > /dev/null 2>s19-$b-causal-other.err
done
Q="--max-queries 500 --seed 1 --modes pipeline --profiles semantic_search,auto"
for b in h19 e5s; do
  [ -f s19-$b-prose/report.json ] || ./cgraph-$b --json bench run --data sets/prose --store stores/prose --out s19-$b-prose $Q > /dev/null 2>s19-$b-prose.err
done
echo ALLDONE
