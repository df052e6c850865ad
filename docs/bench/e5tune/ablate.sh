# nineteenth session: bench ablate of pipeline:auto after E5's tuned queries (cgraph-e5s = 9d9c789), clean and typo queries; run in the bench folder
for s in go php py; do
  ./cgraph-e5s --json bench ablate --data sets/$s --store stores/$s-e7h --profile auto --mode pipeline --max-queries 500 --seed 1 > abl19-$s.json 2> abl19-$s.err
done
for s in go php; do
  ./cgraph-e5s --json bench ablate --data sets/$s --store stores/$s-e7h --profile auto --mode pipeline --max-queries 500 --seed 1 --queries queries-typos.jsonl > ablt19-$s.json 2> ablt19-$s.err
done
echo ALLDONE
