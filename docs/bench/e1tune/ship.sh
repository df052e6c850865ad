# eighteenth session: the shipped E1 query encoder and code_search weights (B = this tree's binary as cgraph-e1s) against HEAD aff39ba's (cgraph-base), on the E7 v2 stores; run in the bench folder (sets/, stores/)
P="--max-queries 500 --seed 1 --modes pipeline,multi_space --profiles code_search,auto"
for s in ${SETS:-go py java js rust php}; do
  for b in base e1s; do
    [ -f s18-$b-$s/report.json ] || ./cgraph-$b --json bench run --data sets/$s --store stores/$s-e7h --out s18-$b-$s $P > /dev/null 2>s18-$b-$s.err
  done
  date
done
C="--max-queries 500 --seed 1 --modes pipeline,multi_space --profiles causal_reasoning,semantic_search,auto --direction effects"
for b in base e1s; do
  ./cgraph-$b --json bench run --data sets/causal --store stores/causal-e7h --out s18-$b-causal $C > /dev/null 2>s18-$b-causal.err
done
Q="--max-queries 500 --seed 1 --modes pipeline --profiles semantic_search,auto"
for b in base e1s; do
  ./cgraph-$b --json bench run --data sets/prose --store stores/prose --out s18-$b-prose $Q > /dev/null 2>s18-$b-prose.err
done
echo ALLDONE
