package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The agent-session benchmark of issue 30: a real MCP client (the Go SDK)
// drives the built binary over stdio on a fresh store with the installed
// models. It stores testdata/agentbench/memories.jsonl through
// store_memory and asks every question of testdata/agentbench/questions.jsonl
// through search_memory (top_k 3) and get_context (budget 800), then prints
// what an agent gets: top-1 and top-3 accuracy, "nothing relevant"
// precision and recall, tokens per answer and time per call.
//
//	go test ./mcpserver -run TestAgentSession -v -count=1
//
// Asserted are quality floors set below what was measured (docs/BENCHMARKS.md
// "Agent session"), never a time.
const (
	benchTopK   = 3
	benchBudget = 800

	floorTop3     = 0.75 // measured 0.83 (40/48 answerable questions)
	floorNRRecall = 0.80 // measured 0.95 (18/19 off-topic questions answered "nothing relevant")
	floorNRPrec   = 0.65 // measured 0.78 (18/23: five paraphrases were answered "nothing relevant" too)
)

// benchMemory is one line of memories.jsonl; Key is stored as meta.key, by
// which hits are matched to questions.
type benchMemory struct {
	Key     string   `json:"key"`
	Type    string   `json:"type"`
	Tags    []string `json:"tags"`
	Content string   `json:"content"`
}

// benchQuestion is one line of questions.jsonl: the keys of the memories
// that answer it (none for an off-topic question) and its kind: direct
// (shares the memory's words), paraphrase (shares few) or offtopic.
type benchQuestion struct {
	Q       string   `json:"q"`
	Answers []string `json:"answers"`
	Kind    string   `json:"kind"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// benchModelsDir is where the models are installed ($CGRAPH_MODELS, else
// ~/.cache/cgraph/models); the test skips when E1's model is not there.
func benchModelsDir(t *testing.T) string {
	dir := os.Getenv("CGRAPH_MODELS")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Skipf("no home directory to find the models in: %v", err)
		}
		dir = filepath.Join(home, ".cache", "cgraph", "models")
	}
	if _, err := os.Stat(filepath.Join(dir, "e5-small-v2")); err != nil {
		t.Skipf("the models are not installed in %s (run `make setup`): %v", dir, err)
	}
	return dir
}

// benchCall is one tool call as an agent pays for it: the answer's bytes
// (text content plus structuredContent, as the wire carries them), its
// structured content decoded, and how long it took.
type benchCall struct {
	bytes int
	data  map[string]any
	took  time.Duration
}

func callTimed(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) benchCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	c := benchCall{took: took}
	var text string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", name, args, text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &c.data); err != nil {
		t.Fatalf("%s: structured content is not a JSON object: %v", name, err)
	}
	c.bytes = len(text) + len(raw)
	return c
}

// stats summarises a sample: mean and p95 (nearest rank).
type stats struct{ mean, p95 float64 }

func summarise(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	i := (95*len(s)+99)/100 - 1
	return stats{mean: sum / float64(len(s)), p95: s[i]}
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// prCount is a precision/recall tally for "nothing relevant" (positive: the
// server answered nothing relevant; truth: the question is off-topic).
type prCount struct{ tp, fp, fn int }

func (c *prCount) add(said, offTopic bool) {
	switch {
	case said && offTopic:
		c.tp++
	case said:
		c.fp++
	case offTopic:
		c.fn++
	}
}

func (c prCount) String() string {
	return fmt.Sprintf("precision %.2f (%d/%d), recall %.2f (%d/%d)",
		ratio(c.tp, c.tp+c.fp), c.tp, c.tp+c.fp, ratio(c.tp, c.tp+c.fn), c.tp, c.tp+c.fn)
}

// startFresh builds the binary, creates an empty store and connects the Go
// SDK client to `cgraph mcp` on it with the installed models, serving
// locally (CGRAPH_NO_SERVER=1: no relay to a running `cgraph serve`).
func startFresh(t *testing.T, models string) *mcp.ClientSession {
	t.Helper()
	bin, db := binary(t), filepath.Join(t.TempDir(), "store")
	env := append(os.Environ(), "CGRAPH_MODELS="+models, "CGRAPH_NO_SERVER=1")
	initCmd := exec.Command(bin, "--db", db, "init")
	initCmd.Env = env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--db", db, "mcp")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cgraph-agentbench", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to cgraph mcp: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("close: %v (stderr: %s)", err, stderr.String())
		}
	})
	return cs
}

func TestAgentSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the models over 66 memories and 67 questions; skipped with -short")
	}
	models := benchModelsDir(t)
	mems := readJSONL[benchMemory](t, "testdata/agentbench/memories.jsonl")
	qs := readJSONL[benchQuestion](t, "testdata/agentbench/questions.jsonl")
	checkFixture(t, mems, qs)
	cs := startFresh(t, models)

	keyOf := map[string]string{} // store id → fixture key
	var storeMS []float64
	var firstStore time.Duration
	for i, m := range mems {
		c := callTimed(t, cs, "store_memory", map[string]any{"content": m.Content, "type": m.Type, "tags": m.Tags,
			"meta": map[string]any{"key": m.Key}})
		id, _ := c.data["id"].(string)
		if id == "" || c.data["duplicate_of"] != nil {
			t.Fatalf("store_memory %s: %v", m.Key, c.data)
		}
		keyOf[id] = m.Key
		if i == 0 {
			firstStore = c.took // waits for the models to load
			continue
		}
		storeMS = append(storeMS, ms(c.took))
	}

	var (
		answerable, top1, top3, ctxCited int
		byKind                           = map[string][2]int{} // kind → {top-3 hits, questions}
		searchNR, ctxNR                  prCount
		searchTok, ctxTok                []float64
		searchMS, ctxMS                  []float64
	)
	for _, q := range qs {
		off := len(q.Answers) == 0
		s := callTimed(t, cs, "search_memory", map[string]any{"query": q.Q, "top_k": benchTopK})
		searchTok, searchMS = append(searchTok, float64(tok4(s.bytes))), append(searchMS, ms(s.took))
		var got []string
		var rel []string
		for _, h := range results(t, s.data) {
			meta, _ := h["meta"].(map[string]any)
			k, _ := meta["key"].(string)
			got = append(got, k)
			rel = append(rel, fmt.Sprintf("%s %.2f", k, h["relevance"]))
		}
		searchNR.add(len(got) == 0, off)

		c := callTimed(t, cs, "get_context", map[string]any{"query": q.Q, "budget": benchBudget})
		ctxTok, ctxMS = append(ctxTok, float64(tok4(c.bytes))), append(ctxMS, ms(c.took))
		var cited []string
		cites, _ := c.data["cites"].([]any)
		for _, x := range cites {
			id, _ := x.(map[string]any)["id"].(string)
			cited = append(cited, keyOf[id])
		}
		ctxNR.add(len(cited) == 0, off)

		if off {
			if len(got) > 0 {
				t.Logf("off-topic, answered: %q → [%s]", q.Q, strings.Join(rel, ", "))
			}
			continue
		}
		answerable++
		hit := func(keys []string) bool {
			return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(q.Answers, k) })
		}
		k := byKind[q.Kind]
		k[1]++
		if hit(got) {
			top3++
			k[0]++
		} else {
			t.Logf("miss (%s): %q wants %v → [%s]", q.Kind, q.Q, q.Answers, strings.Join(rel, ", "))
		}
		byKind[q.Kind] = k
		if len(got) > 0 && slices.Contains(q.Answers, got[0]) {
			top1++
		} else if hit(got) {
			t.Logf("top-3 not top-1 (%s): %q wants %v → [%s]", q.Kind, q.Q, q.Answers, strings.Join(rel, ", "))
		}
		if hit(cited) {
			ctxCited++
		}
	}

	a3, nr := ratio(top3, answerable), searchNR
	t.Logf("fixture: %d memories, %d questions (%d answerable: %d direct, %d paraphrase; %d off-topic)",
		len(mems), len(qs), answerable, byKind["direct"][1], byKind["paraphrase"][1], len(qs)-answerable)
	t.Logf("search_memory top_k %d: top-1 %.2f (%d/%d), top-3 %.2f (%d/%d); direct %d/%d, paraphrase %d/%d",
		benchTopK, ratio(top1, answerable), top1, answerable, a3, top3, answerable,
		byKind["direct"][0], byKind["direct"][1], byKind["paraphrase"][0], byKind["paraphrase"][1])
	t.Logf("search_memory \"nothing relevant\": %v", searchNR)
	t.Logf("get_context budget %d: an answering memory cited for %.2f (%d/%d) of answerable questions; packed nothing: %v",
		benchBudget, ratio(ctxCited, answerable), ctxCited, answerable, ctxNR)
	ss, cs2 := summarise(searchTok), summarise(ctxTok)
	t.Logf("tokens per answer (bytes/4): search_memory mean %.0f, p95 %.0f; get_context mean %.0f, p95 %.0f", ss.mean, ss.p95, cs2.mean, cs2.p95)
	st, sm, cm := summarise(storeMS), summarise(searchMS), summarise(ctxMS)
	t.Logf("time per call: first store_memory %.0f ms (loads the models); store_memory mean %.0f ms, p95 %.0f; search_memory mean %.0f ms, p95 %.0f; get_context mean %.0f ms, p95 %.0f (after search_memory on the same query: its query views come from the engine's view cache)",
		ms(firstStore), st.mean, st.p95, sm.mean, sm.p95, cm.mean, cm.p95)

	if a3 < floorTop3 {
		t.Errorf("top-3 accuracy %.2f, below the floor %.2f", a3, floorTop3)
	}
	if r := ratio(nr.tp, nr.tp+nr.fn); r < floorNRRecall {
		t.Errorf("\"nothing relevant\" recall %.2f, below the floor %.2f", r, floorNRRecall)
	}
	if p := ratio(nr.tp, nr.tp+nr.fp); nr.tp+nr.fp > 0 && p < floorNRPrec {
		t.Errorf("\"nothing relevant\" precision %.2f, below the floor %.2f", p, floorNRPrec)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkFixture asserts the fixture is what the issue asks for: ≥ 60
// memories with unique keys, ≥ 50 questions of which ≥ 15 paraphrases and
// ≥ 15 off-topic, every answer key a stored memory.
func checkFixture(t *testing.T, mems []benchMemory, qs []benchQuestion) {
	t.Helper()
	keys := map[string]bool{}
	for _, m := range mems {
		if m.Key == "" || keys[m.Key] {
			t.Fatalf("memory key %q empty or repeated", m.Key)
		}
		keys[m.Key] = true
	}
	kinds := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
		if (q.Kind == "offtopic") != (len(q.Answers) == 0) {
			t.Fatalf("question %q: kind %s with answers %v", q.Q, q.Kind, q.Answers)
		}
		for _, a := range q.Answers {
			if !keys[a] {
				t.Fatalf("question %q: answer %s is no memory", q.Q, a)
			}
		}
	}
	if len(mems) < 60 || len(qs) < 50 || kinds["paraphrase"] < 15 || kinds["offtopic"] < 15 {
		t.Fatalf("fixture too small: %d memories, %d questions, kinds %v", len(mems), len(qs), kinds)
	}
}
