package cellar

// Tests that need a second process: the writer lock (flock is per open file,
// RocksDB's LOCK per process) and the crash test. The test binary re-executes
// itself with childModeEnv set; TestMain then runs the child instead of the
// tests.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cgraph/cgraph/record"
)

const (
	childModeEnv = "CGRAPH_ENGINE_TEST_CHILD"
	childDirEnv  = "CGRAPH_ENGINE_TEST_DIR"
	childSeedEnv = "CGRAPH_ENGINE_TEST_SEED"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childModeEnv); mode != "" {
		os.Exit(runChild(mode, os.Getenv(childDirEnv)))
	}
	os.Exit(runTests(m))
}

// runTests runs the tests with the system temp dir pointed at a folder of
// their own and fails the run if a read-only instance's directory is left
// there: Close removes it, so a leftover is a reader no one closed (each one
// used to stay in /tmp for good).
func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "cgraph-cellar-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "make the tests' temp dir:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		fmt.Fprintln(os.Stderr, "point TMPDIR at the tests' temp dir:", err)
		return 1
	}
	code := m.Run()
	if left, _ := filepath.Glob(filepath.Join(tmp, "cgraph-secondary-*")); len(left) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d read-only instance directories outlived their tests (a reader was not closed): %v\n", len(left), left)
		code = 1
	}
	return code
}

// runChild is the body of a re-executed test binary. It reports on stdout,
// one line per event, and returns the exit code.
func runChild(mode, dir string) int {
	ctx := context.Background()
	switch mode {
	case "open-writer": // try to open for writing; say what happened
		e, err := Open(dir, Options{})
		var inUse *record.StoreInUseError
		switch {
		case errors.As(err, &inUse):
			fmt.Printf("inuse %d %s\n", inUse.PID, err)
		case err != nil:
			fmt.Printf("error %s\n", err)
		default:
			fmt.Println("opened")
			if err := e.Close(); err != nil {
				fmt.Printf("error %s\n", err)
			}
		}
		return 0
	case "serve": // hold the writer and obey "add TEXT" / "del ID" lines
		e, err := Open(dir, Options{Create: true})
		if err != nil {
			fmt.Printf("error %s\n", err)
			return 1
		}
		fmt.Println("ready")
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			cmd, arg, _ := strings.Cut(in.Text(), " ")
			switch cmd {
			case "add":
				m, err := e.Add(ctx, record.NewMemory{Content: arg, Session: "serve"})
				if err != nil {
					fmt.Printf("error %s\n", err)
					continue
				}
				fmt.Printf("id %s\n", m.ID)
			case "del":
				id, err := record.ParseID(arg)
				if err == nil {
					err = e.Delete(ctx, id)
				}
				if err != nil {
					fmt.Printf("error %s\n", err)
					continue
				}
				fmt.Println("ok")
			}
		}
		if err := e.Close(); err != nil {
			fmt.Printf("error %s\n", err)
			return 1
		}
		return 0
	case "hold-reader": // open a reader, say its folder, hold it until killed
		r, err := Open(dir, Options{ReadOnly: true})
		if err != nil {
			fmt.Printf("error %s\n", err)
			return 1
		}
		fmt.Printf("secondary %s\n", r.kv.(*rocksStore).secondary)
		_, _ = io.Copy(io.Discard, os.Stdin) // the test kills it; EOF only if the test died
		if err := r.Close(); err != nil {
			fmt.Printf("error %s\n", err)
			return 1
		}
		return 0
	case "lowfiles": // open, add, check and read under a 256 open-file limit
		return lowFilesChild(ctx, dir)
	case "crash": // add memories until killed, acknowledging each id
		seed, _ := strconv.ParseUint(os.Getenv(childSeedEnv), 10, 64)
		return crashChild(ctx, dir, seed)
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

func crashChild(ctx context.Context, dir string, seed uint64) int {
	e, err := Open(dir, Options{Create: true})
	if err != nil {
		fmt.Printf("error %s\n", err)
		return 1
	}
	fmt.Println("ready")
	rng := rand.New(rand.NewPCG(seed, 7))
	var mine []record.ID // this run's acknowledged, undeleted memories
	for i := 0; ; i++ {
		switch op := rng.IntN(10); {
		case op == 0 && len(mine) > 0: // delete one, then acknowledge the delete
			k := rng.IntN(len(mine))
			id := mine[k]
			mine[k] = mine[len(mine)-1]
			mine = mine[:len(mine)-1]
			// Announce first: a kill during Delete may or may not remove it.
			if _, err := os.Stdout.WriteString("deleting " + id.String() + "\n"); err != nil {
				return 1
			}
			if err := e.Delete(ctx, id); err != nil {
				fmt.Printf("error %s\n", err)
				return 1
			}
			if _, err := os.Stdout.WriteString("del " + id.String() + "\n"); err != nil {
				return 1
			}
			continue
		case op <= 2 && len(mine) > 0: // a Get rewrites the record's access fields
			if _, err := e.Get(ctx, mine[rng.IntN(len(mine))]); err != nil {
				fmt.Printf("error %s\n", err)
				return 1
			}
			continue
		}
		n := 1 + rng.IntN(8)
		batch := make([]record.NewMemory, n)
		for j := range batch {
			batch[j] = record.NewMemory{
				Content: strings.Repeat(fmt.Sprintf("memory %d.%d ", i, j), 1+rng.IntN(20)),
				Type:    record.Types()[rng.IntN(len(typeCodes))],
				Tags:    []string{fmt.Sprint("tag", rng.IntN(5))},
				Session: fmt.Sprint("s", rng.IntN(4)),
			}
		}
		var ms []record.Memory
		if n == 1 {
			var m record.Memory
			m, err = e.Add(ctx, batch[0])
			ms = []record.Memory{m}
		} else {
			ms, err = e.AddBatch(ctx, batch)
		}
		if err != nil {
			fmt.Printf("error %s\n", err)
			return 1
		}
		var line strings.Builder
		for _, m := range ms {
			line.WriteString("ack " + m.ID.String() + "\n")
			mine = append(mine, m.ID)
		}
		// Unbuffered: an id is acknowledged once it is in the pipe.
		if _, err := os.Stdout.WriteString(line.String()); err != nil {
			return 1
		}
	}
}

// child is a running re-executed test binary.
type child struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // complete stdout lines; closed at EOF
}

func startChild(t *testing.T, mode, dir string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, childModeEnv+"="+mode, childDirEnv+"="+dir)...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, in: in, lines: make(chan string, 1<<16)}
	go func() {
		defer close(c.lines)
		r := bufio.NewReader(out)
		for {
			s, err := r.ReadString('\n')
			if err != nil { // a line cut by a kill is not an acknowledgement
				return
			}
			c.lines <- strings.TrimSuffix(s, "\n")
		}
	}()
	return c
}

// next returns the child's next line, failing the test after a minute.
func (c *child) next(t *testing.T) string {
	t.Helper()
	select {
	case s, ok := <-c.lines:
		if !ok {
			t.Fatal("child exited without the expected line")
		}
		return s
	case <-time.After(time.Minute):
		t.Fatal("no line from the child for a minute")
	}
	return ""
}

func (c *child) send(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	return c.next(t)
}

// stop closes the child's stdin and waits for it to exit cleanly.
func (c *child) stop(t *testing.T) {
	t.Helper()
	if err := c.in.Close(); err != nil {
		t.Fatal(err)
	}
	for range c.lines {
	}
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
}

func TestSecondWriterInChildProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	openTest(t, dir, Options{Create: true})
	c := startChild(t, "open-writer", dir)
	line := c.next(t)
	c.stop(t)
	want := fmt.Sprintf("inuse %d ", os.Getpid())
	if !strings.HasPrefix(line, want) || !strings.Contains(line, "--read-only") ||
		!strings.Contains(line, fmt.Sprintf("stop pid %d", os.Getpid())) {
		t.Fatalf("second writer said %q, want a record.StoreInUseError naming pid %d and what to do", line, os.Getpid())
	}
}

func TestSecondWriterInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	openTest(t, dir, Options{Create: true})
	_, err := Open(dir, Options{})
	var inUse *record.StoreInUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || inUse.Dir != dir {
		t.Fatalf("second Open: %v, want record.StoreInUseError for pid %d", err, os.Getpid())
	}
}

func TestWriterLockHeldByChild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	c := startChild(t, "serve", dir)
	if s := c.next(t); s != "ready" {
		t.Fatalf("child: %s", s)
	}
	_, err := Open(dir, Options{})
	var inUse *record.StoreInUseError
	if !errors.As(err, &inUse) || inUse.PID != c.cmd.Process.Pid {
		t.Fatalf("Open beside a child writer: %v, want record.StoreInUseError naming pid %d", err, c.cmd.Process.Pid)
	}
	// A killed writer leaves no stale lock: the kernel drops the flock.
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Wait(); err == nil {
		t.Fatal("killed child exited cleanly")
	}
	openTest(t, dir, Options{})
}

func TestReadOnlyBesideWriterSeesLaterWrites(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	c := startChild(t, "serve", dir)
	defer c.stop(t)
	if s := c.next(t); s != "ready" {
		t.Fatalf("child: %s", s)
	}
	first := addViaChild(t, c, "before the reader opened")
	r := openTest(t, dir, Options{ReadOnly: true})
	if m, err := r.Get(ctx, first); err != nil || m.Content != "before the reader opened" {
		t.Fatalf("reader Get: %+v, %v", m, err)
	}
	var later []record.ID
	for i := range 30 {
		later = append(later, addViaChild(t, c, fmt.Sprint("after the reader opened ", i)))
		m, err := r.Get(ctx, later[i])
		if err != nil || m.Content != fmt.Sprint("after the reader opened ", i) {
			t.Fatalf("reader does not see write %d: %+v, %v", i, m, err)
		}
	}
	page, err := r.List(ctx, record.ListOptions{Limit: 100})
	if err != nil || len(page) != 31 || page[0].ID != later[29] {
		t.Fatalf("reader List: %d memories, %v", len(page), err)
	}
	if s := c.send(t, "del "+first.String()); s != "ok" {
		t.Fatalf("child delete: %s", s)
	}
	if _, err := r.Get(ctx, first); !errors.Is(err, record.ErrNotFound) {
		t.Fatalf("reader still sees the deleted memory: %v", err)
	}
	st, err := r.Stats(ctx)
	if err != nil || st.Memories != 30 {
		t.Fatalf("reader stats: %+v, %v", st, err)
	}
	if err := r.Check(ctx); err != nil {
		t.Fatalf("reader Check: %v", err)
	}
}

func addViaChild(t *testing.T, c *child, text string) record.ID {
	t.Helper()
	s := c.send(t, "add "+text)
	idText, ok := strings.CutPrefix(s, "id ")
	if !ok {
		t.Fatalf("child add: %s", s)
	}
	id, err := record.ParseID(idText)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCrashDuringBulkAdd kills a child that bulk-adds memories at random
// points; after each kill the store must open, hold every memory the child
// acknowledged, and hold no fragment of any other memory. Runs: 20, or
// CGRAPH_SOAK_RUNS.
func TestCrashDuringBulkAdd(t *testing.T) {
	runs := 20
	if s := os.Getenv("CGRAPH_SOAK_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("CGRAPH_SOAK_RUNS=%q: want a positive number", s)
		}
		runs = n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	acked := make(map[record.ID]bool)   // acknowledged adds, minus deletes begun
	deleted := make(map[record.ID]bool) // acknowledged deletes
	for run := range runs {
		c := startChild(t, "crash", dir, fmt.Sprint(childSeedEnv, "=", seed+uint64(run)))
		// One run in five is killed at once, often during RocksDB's open
		// and log recovery; the others after the store is open.
		if rng.IntN(5) != 0 {
			if s := c.next(t); s != "ready" {
				t.Fatalf("run %d: child: %s", run, s)
			}
			time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond)
		}
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		var thisRun, dels int
		for line := range c.lines {
			verb, idText, _ := strings.Cut(line, " ")
			if verb == "ready" {
				continue
			}
			id, err := record.ParseID(idText)
			if err != nil {
				t.Fatalf("run %d: child: %s", run, line)
			}
			switch verb {
			case "ack":
				acked[id] = true
				thisRun++
			case "deleting": // in flight: may be there or not, but whole
				delete(acked, id)
			case "del":
				deleted[id] = true
				dels++
			default:
				t.Fatalf("run %d: child: %s", run, line)
			}
		}
		if err := c.cmd.Wait(); err == nil {
			t.Fatalf("run %d: child was not killed", run)
		}
		e, err := Open(dir, Options{})
		if errors.Is(err, record.ErrNoStore) && len(acked) == 0 && len(deleted) == 0 {
			t.Logf("run %d: killed before the store existed", run)
			continue
		}
		if err != nil {
			t.Fatalf("run %d: open after kill: %v", run, err)
		}
		stored := make(map[record.ID]bool)
		for _, k := range scanFamily(t, e, FamMemories) {
			stored[record.ID(k)] = true
		}
		for id := range acked { // every run re-checks all earlier acknowledgements too
			if !stored[id] {
				t.Errorf("run %d: acknowledged memory %s lost", run, id)
			}
		}
		for id := range deleted {
			if stored[id] {
				t.Errorf("run %d: memory %s is back after its acknowledged delete", run, id)
			}
		}
		if err := e.Check(ctx); err != nil {
			t.Errorf("run %d: store inconsistent after kill: %v", run, err)
		}
		st, err := e.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			t.FailNow()
		}
		if st.Memories < uint64(len(acked)) {
			t.Fatalf("run %d: %d memories, %d acknowledged", run, st.Memories, len(acked))
		}
		t.Logf("run %d: %d adds and %d deletes acked this run; %d acked memories in all, %d stored", run, thisRun, dels, len(acked), st.Memories)
	}
	if len(acked) == 0 {
		t.Fatal("no run acknowledged a memory: the kills came too early to test anything")
	}
}
