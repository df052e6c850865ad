package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cgraph/cgraph/embedders/modelfree"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// BenchmarkScheduledMaintenance measures issue 31's goals on one store of
// CGRAPH_UPKEEP_N memories (default 10,000; the goal is stated at
// 100,000), model-free (the store is built in minutes; searches run the
// model-free slots' pipeline, so a run's share of the CPU weighs more on
// them than on searches that embed the query with a model): 1% exact
// copies, 1% superseded, 1% faded notes. Each of 5 rounds measures search
// latency alone (200 searches back to back), then beside one scheduled run
// (Schedule.RunOnce, its pauses included; round 1 applies merge_duplicate
// and prune with no action limit, rounds 2–5 are the default dry run) with
// searches back to back until the run ends. It reports the run's seconds
// and the p95 of each phase (medians over the rounds), and the ratio.
//
//	CGRAPH_UPKEEP_N=100000 go test ./ops -run '^$' -bench ScheduledMaintenance -benchtime 1x
func BenchmarkScheduledMaintenance(b *testing.B) {
	ctx := context.Background()
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("CGRAPH_UPKEEP_N")); err == nil && v >= 1000 {
		n = v
	}
	reg, err := modelfree.Registry(modelfree.Config{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	e, err := engine.Open(filepath.Join(b.TempDir(), "store"), engine.Options{Create: true, Embedders: reg, Clock: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := e.Close(); err != nil {
			b.Error(err)
		}
	}()
	t0 := time.Now()
	words := []string{"cache", "index", "build", "deploy", "schema", "token", "worker", "queue", "retry", "timeout", "config", "shard"}
	const batch = 500
	var olds []record.ID
	for lo := 0; lo < n; lo += batch {
		ns := make([]record.NewMemory, 0, batch)
		for i := lo; i < min(lo+batch, n); i++ {
			m := record.NewMemory{Content: fmt.Sprintf("note %d: the %s of service %d uses the %s after a %s", i, words[i%12], i/7, words[(i/12)%12], words[(i/144)%12]),
				CreatedAt: now.Add(-time.Duration(n-i) * time.Minute), AllowDuplicate: true}
			switch i % 100 {
			case 1: // an exact copy of the memory before it
				m.Content = ns[len(ns)-1].Content
			case 2: // faded: old and unimportant
				m.CreatedAt, m.Importance = now.Add(-300*24*time.Hour), 0.1
			}
			ns = append(ns, m)
		}
		ms, err := e.AddBatch(ctx, ns)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			if int(m.DocNum)%100 == 3 {
				olds = append(olds, m.ID)
			}
		}
	}
	for i := 1; i < len(olds); i += 2 { // 1% superseded (half of the 3rd memories of each 100 by the other half)
		if _, err := e.Link(ctx, record.Relation{From: olds[i], To: olds[i-1], Type: record.RelSupersedes}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("store of %d memories built in %s", n, time.Since(t0).Round(time.Second))
	search := func(i int) time.Duration {
		q := fmt.Sprintf("which %s does service %d use", words[i%12], (i*37)%(n/7))
		s := time.Now()
		if _, err := e.Search(ctx, engine.SearchRequest{Query: q, TopK: 10}); err != nil {
			b.Fatal(err)
		}
		return time.Since(s)
	}
	p95 := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)*95/100].Microseconds()) / 1000
	}
	for i := range 50 { // warm
		search(i)
	}
	b.ResetTimer()
	var runS, alone, beside []float64
	for round := range 5 {
		var ds []time.Duration
		for i := range 200 {
			ds = append(ds, search(i))
		}
		alone = append(alone, p95(ds))
		req := MaintenanceRequest{Policy: DefaultPolicy()}
		if round == 0 {
			req = MaintenanceRequest{Apply: true, Policy: Policy{Actions: []string{"merge_duplicate", "prune"}, PruneBelow: 0.05, MaxActions: 100000}}
		}
		sc := NewSchedule(e, ScheduleOptions{Every: time.Hour, Request: req, Clock: func() time.Time { return now }})
		var rep MaintenanceReport
		var wg sync.WaitGroup
		done := make(chan struct{})
		s := time.Now()
		wg.Go(func() { rep = sc.RunOnce(ctx); close(done) })
		ds = ds[:0]
		for i := 0; ; i++ {
			select {
			case <-done:
			default:
				ds = append(ds, search(i))
				continue
			}
			break
		}
		wg.Wait()
		runS = append(runS, time.Since(s).Seconds())
		if rep.Error != "" {
			b.Fatal(rep.Error)
		}
		beside = append(beside, p95(ds))
		b.Logf("round %d: run %.2f s (%d actions, %d applied), %d searches beside it: p95 %.2f ms beside vs %.2f ms alone",
			round+1, runS[round], len(rep.Actions), rep.Applied, len(ds), beside[round], alone[round])
	}
	med := func(xs []float64) float64 { s := slices.Clone(xs); slices.Sort(s); return s[len(s)/2] }
	b.ReportMetric(med(runS), "run_s")
	b.ReportMetric(med(alone), "p95_alone_ms")
	b.ReportMetric(med(beside), "p95_beside_ms")
	b.ReportMetric(med(beside)/med(alone), "p95_ratio")
}
