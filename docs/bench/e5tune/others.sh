# nineteenth session: the other built-ins on the six code sets (pipeline mode) for auto − best built-in; run in the bench folder
for s in go py java js rust php; do
  [ -f s19-oth-$s/report.json ] || ./cgraph-e5s --json bench run --data sets/$s --store stores/$s-e7h --out s19-oth-$s --max-queries 500 --seed 1 --modes pipeline --profiles semantic_search,causal_reasoning,pipeline_full --no-baselines > /dev/null 2>s19-oth-$s.err
  date
done
echo ALLDONE
