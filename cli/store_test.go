package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/models"
)

// realModels is the models directory `make setup` installed into, taken
// from the environment before TestMain replaces it.
var realModels string

// TestMain points $CGRAPH_MODELS at an empty directory for the whole
// package: commands that open the memory store then run with the model-free
// slots only (E2–E4, E6, E9, E11 sets), which is what tests of the plumbing
// (line numbers, exit codes, JSON shapes) need, without loading ONNX models
// in every in-process run. Tests of real retrieval pass --models-dir
// realModelsDir(t) explicitly.
func TestMain(m *testing.M) {
	realModels = defaultModelsDir(os.Getenv)
	empty, err := os.MkdirTemp("", "cgraph-no-models-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("CGRAPH_MODELS", empty)
	code := m.Run()
	os.RemoveAll(empty)
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// realModelsDir returns the installed models directory, failing the test
// with how to install them when a model of the default precision is missing.
func realModelsDir(t testing.TB) string {
	t.Helper()
	mf, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	ids, err := neural.Models(engine.ModelsConfig{Manifest: mf})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !mf.Installed(realModels, id) {
			t.Fatalf("model %s is not installed in %s: run `make setup` (or `bin/cgraph models pull %s`); set $CGRAPH_MODELS if they live elsewhere",
				id, realModels, id)
		}
	}
	return realModels
}

// sampleStore creates a store with the bundled samples, embedded with the
// models in modelsDir, and returns its --db.
func sampleStore(t *testing.T, modelsDir string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "store")
	mustRun(t, "", "--db", db, "--models-dir", modelsDir, "init", "--samples")
	return db
}

var (
	sharedOnce sync.Once
	sharedDir  string // removed by TestMain
	sharedDB   string
	sharedErr  string
)

// sharedSampleStore returns the --db of one store of the bundled samples
// embedded with the real models, made once for the tests that only read it
// (search, embedders): embedding the samples is the slow part.
func sharedSampleStore(tb testing.TB) string {
	tb.Helper()
	if t, ok := tb.(*testing.T); ok {
		realModelsDir(t)
	}
	sharedOnce.Do(func() {
		var err error
		if sharedDir, err = os.MkdirTemp("", "cgraph-samples-"); err != nil {
			sharedErr = err.Error()
			return
		}
		db := filepath.Join(sharedDir, "store")
		if code, stderr := execCLI("--db", db, "--models-dir", realModels, "init", "--samples"); code != ExitOK {
			sharedErr = fmt.Sprintf("init --samples: exit %d: %s", code, stderr)
			return
		}
		sharedDB = db
	})
	if sharedErr != "" {
		tb.Fatal(sharedErr)
	}
	return sharedDB
}

// execCLI runs the command line in-process with empty stdin, discarding
// stdout; for benchmarks and set-up shared between tests.
func execCLI(args ...string) (code int, stderr string) {
	var errb bytes.Buffer
	code = ExecuteContext(context.Background(), args, strings.NewReader(""), io.Discard, &errb)
	return code, errb.String()
}
