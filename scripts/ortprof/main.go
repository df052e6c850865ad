// Command ortprof summarises an ONNX Runtime profile (the Chrome-trace JSON
// a session writes with runtime.Config.ProfilePrefix, e.g. from scripts/gpucheck
// -ort-profile): the time of the model runs, and of their nodes by operator
// and execution provider, largest first. It answers "where does a Run's time
// go" — a node on the CPU provider between CUDA nodes, a Memcpy, an
// operator that dominates.
//
//	go run ./scripts/ortprof [-top 25] PROFILE.json
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

type event struct {
	Cat  string         `json:"cat"`
	Name string         `json:"name"`
	Dur  float64        `json:"dur"` // µs
	Args map[string]any `json:"args"`
}

type total struct {
	key   string
	us    float64
	count int
}

func main() {
	top := flag.Int("top", 25, "rows of the operator table")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: ortprof [-top N] PROFILE.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ortprof:", err)
		os.Exit(1)
	}
	var events []event
	if err := json.Unmarshal(data, &events); err != nil {
		fmt.Fprintf(os.Stderr, "ortprof: %s is not an ONNX Runtime trace: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	var runs, runUS, nodeUS float64
	byOp := map[string]*total{}
	for _, e := range events {
		switch {
		case e.Cat == "Session" && e.Name == "model_run":
			runs++
			runUS += e.Dur
		case e.Cat == "Node" && strings.HasSuffix(e.Name, "_kernel_time"):
			op, _ := e.Args["op_name"].(string)
			prov, _ := e.Args["provider"].(string)
			k := op + " on " + strings.TrimSuffix(prov, "ExecutionProvider")
			t := byOp[k]
			if t == nil {
				t = &total{key: k}
				byOp[k] = t
			}
			t.us += e.Dur
			t.count++
			nodeUS += e.Dur
		}
	}
	fmt.Printf("%.0f runs, %.1f ms in model_run (%.2f ms each); %.1f ms in node kernels (%.0f%% of the runs)\n",
		runs, runUS/1000, runUS/1000/max(runs, 1), nodeUS/1000, 100*nodeUS/max(runUS, 1))
	rows := make([]*total, 0, len(byOp))
	for _, t := range byOp {
		rows = append(rows, t)
	}
	slices.SortFunc(rows, func(a, b *total) int { return cmp.Compare(b.us, a.us) })
	fmt.Printf("%-48s %10s %6s %8s\n", "operator on provider", "ms", "share", "nodes")
	for _, t := range rows[:min(*top, len(rows))] {
		fmt.Printf("%-48s %10.1f %5.1f%% %8d\n", t.key, t.us/1000, 100*t.us/max(nodeUS, 1), t.count)
	}
}
