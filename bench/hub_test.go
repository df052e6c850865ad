package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort returns a local URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

func TestResolveMTEBTask(t *testing.T) {
	if task, err := ResolveMTEBTask("cosqa"); err != nil || task.Repo != "CoIR-Retrieval/cosqa" || len(task.Revision) != 40 {
		t.Errorf("cosqa: %+v %v", task, err)
	}
	if task, err := ResolveMTEBTask("me/set@v2"); err != nil || task != (MTEBTask{Name: "set", Repo: "me/set", Revision: "v2"}) {
		t.Errorf("repo@rev: %+v %v", task, err)
	}
	if task, _ := ResolveMTEBTask("me/set"); task.Revision != "main" {
		t.Errorf("default revision %q", task.Revision)
	}
	for _, bad := range []string{"NoSuchTask", "a/b/c", "/x", "a/"} {
		if _, err := ResolveMTEBTask(bad); err == nil || !strings.Contains(err.Error(), "unknown MTEB task") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestFetchMTEBUnreachable: with the hub out of reach (a closed local port,
// given as the endpoint or through CGRAPH_HF_ENDPOINT) the error says so,
// names the endpoint and the way around it, and nothing is written.
func TestFetchMTEBUnreachable(t *testing.T) {
	task, _ := ResolveMTEBTask("CosQA")
	ep := closedPort(t)
	for _, tc := range []struct{ name, flag, env string }{{"flag", ep, ""}, {"env", "", ep}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CGRAPH_HF_ENDPOINT", tc.env)
			out := t.TempDir()
			_, err := FetchMTEB(context.Background(), FetchOptions{Task: task, Out: out, Endpoint: tc.flag})
			var ue *HubUnreachableError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want a HubUnreachableError", err)
			}
			for _, want := range []string{"cannot reach the Hugging Face hub at " + ep, "connection refused", "mteb:CosQA", "CoIR-Retrieval/cosqa", "CGRAPH_HF_ENDPOINT", "bench run --data"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("wrote %v", entries)
			}
		})
	}
}

// fakeHub serves the files under dir as dataset repo o/tiny at commit
// "c0ffee" through the two hub endpoints FetchMTEB uses; corrupt names a
// file served with other bytes than listed.
func fakeHub(t *testing.T, dir, corrupt string) *httptest.Server {
	t.Helper()
	var sibs []map[string]any
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		sibs = append(sibs, map[string]any{"rfilename": filepath.ToSlash(rel), "size": len(b),
			"lfs": map[string]any{"sha256": hex.EncodeToString(sum[:]), "size": len(b)}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sibs = append(sibs, map[string]any{"rfilename": ".gitattributes", "size": 10})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/datasets/o/tiny/revision/main", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("blobs") != "true" {
			http.Error(w, "want blobs", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "o/tiny", "sha": "c0ffee", "siblings": sibs})
	})
	mux.HandleFunc("GET /datasets/o/tiny/resolve/c0ffee/{path...}", func(w http.ResponseWriter, r *http.Request) {
		p := r.PathValue("path")
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if p == corrupt {
			b[len(b)/2] ^= 0xff
		}
		_, _ = w.Write(b)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchMTEBFromHub fetches the parquet fixture from a local server that
// answers as the hub does, then loads what was written.
func TestFetchMTEBFromHub(t *testing.T) {
	srv := fakeHub(t, "testdata/mteb/parquet", "")
	task, err := ResolveMTEBTask("o/tiny")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res, err := FetchMTEB(context.Background(), FetchOptions{Task: task, Out: out, Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != "c0ffee" || len(res.Files) != 6 || res.Source != srv.URL+"/datasets/o/tiny" {
		t.Errorf("result %+v", res)
	}
	ds, err := Load(out, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, ds, map[QueryID]map[DocID]int{"q2": {"d404": 1}})
	var back FetchResult
	b, err := os.ReadFile(filepath.Join(out, "prepare.json"))
	if err != nil || json.Unmarshal(b, &back) != nil || len(back.Files) != 6 || back.Files[0].SHA256 == "" {
		t.Errorf("prepare.json (%v): %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, ".gitattributes")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("fetched a file Load does not read: %v", err)
	}
}

func TestFetchMTEBRefusals(t *testing.T) {
	srv := fakeHub(t, "testdata/mteb/parquet", "corpus/test-00000-of-00001.parquet")
	task, _ := ResolveMTEBTask("o/tiny")
	out := t.TempDir()
	_, err := FetchMTEB(context.Background(), FetchOptions{Task: task, Out: out, Endpoint: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "the download is corrupt") {
		t.Fatalf("corrupt file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "corpus", "test-00000-of-00001.parquet")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a corrupt download was kept: %v", err)
	}
	other, _ := ResolveMTEBTask("o/missing")
	if _, err := FetchMTEB(context.Background(), FetchOptions{Task: other, Out: out, Endpoint: srv.URL}); err == nil || !strings.Contains(err.Error(), "no dataset o/missing at revision main") {
		t.Errorf("missing repo: %v", err)
	}
	flat := fakeHub(t, "testdata/src/go", "")
	if _, err := FetchMTEB(context.Background(), FetchOptions{Task: task, Out: t.TempDir(), Endpoint: flat.URL}); err == nil || !strings.Contains(err.Error(), "not in the MTEB retrieval layout") {
		t.Errorf("not a retrieval set: %v", err)
	}
}
