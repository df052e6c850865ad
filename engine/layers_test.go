package engine

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cgraph/cgraph/"

// TestLayers checks the import graph the design draws: the faces reach the
// store only through package engine, never its cellar; the packages the
// engine composes (and the record vocabulary under them) import no engine
// package at all. The compiler already refuses an import of
// engine/internal from outside engine; this test also catches a face or a
// lower layer importing engine where it must not, and names the culprit.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \",\"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		for _, d := range strings.Split(deps, ",") {
			if strings.HasPrefix(d, module) {
				imports[strings.TrimPrefix(pkg, module)] = append(imports[strings.TrimPrefix(pkg, module)], strings.TrimPrefix(d, module))
			}
		}
		if _, ok := imports[strings.TrimPrefix(pkg, module)]; !ok {
			imports[strings.TrimPrefix(pkg, module)] = nil
		}
	}
	for _, must := range append([]string{"engine", "engine/internal/cellar", "record", "internal/decbuf", "pipeline"}, faces...) {
		if _, ok := imports[must]; !ok {
			t.Fatalf("go list does not show package %s: the test's picture of the tree is stale", must)
		}
	}
	under := func(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
	for pkg, deps := range imports {
		for _, d := range deps {
			switch {
			case under(d, "engine/internal") && !under(pkg, "engine"):
				t.Errorf("%s imports %s: only package engine may reach its cellar", pkg, d)
			case under(d, "engine") && lowerLayer(pkg):
				t.Errorf("%s imports %s: the packages the engine composes must not import it", pkg, d)
			case slices.Contains(leafPackages, pkg) && !slices.Contains(leafImports[pkg], d):
				t.Errorf("%s imports %s: the vocabulary packages are leaves", pkg, d)
			case face(pkg) && behindTheDoor(d):
				t.Errorf("%s imports %s: a face reaches the engine's parts through package engine (its vocabulary.go) and ops, never directly", pkg, d)
			}
		}
	}
}

// leafPackages are the vocabulary packages and the shared decoder of stored
// bytes under them; leafImports says the only module packages each may
// import: record none, the decoder record (for ErrCorrupt), fingerprint
// those two.
var (
	leafPackages = []string{"record", "internal/decbuf", "fingerprint"}
	leafImports  = map[string][]string{
		"internal/decbuf": {"record"},
		"fingerprint":     {"record", "internal/decbuf"},
	}
)

// lowerLayer reports whether pkg is one of the packages the engine
// composes, or the vocabulary under them.
func lowerLayer(pkg string) bool {
	for _, p := range []string{"pipeline", "indexes", "embedders", "profiles", "fingerprint", "models", "record", "topics"} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") && pkg != "topics/topicstore" {
			return true
		}
	}
	return false
}

// faces are the packages that serve people and programs (commands, tools,
// routes, the bench's retriever) and the operations layer under them: they
// import engine, ops, record (and bench, models, their own helpers), never
// the parts behind the engine. hooks (what an agent hook event does, the
// CLI's hook command's job) searches through engine and ops as a face does,
// so it is held to the same rule; so is serverfile (a serve's discovery
// file), which names the store's directory through engine. The CLI's
// command groups (cli/benchcmd, cli/hookscmd, …) and their shared base
// cli/app are the CLI, held to its rule.
var faces = []string{"cli", "cli/app", "cli/benchcmd", "cli/hookscmd", "cli/modelscmd", "cli/servecmd", "cli/storecmd",
	"cmd/cgraph", "mcpserver", "httpapi", "ops", "benchstore", "hooks", "serverfile"}

func face(pkg string) bool { return slices.Contains(faces, pkg) }

// behindTheDoor reports whether pkg is one of the parts the engine
// composes, which only the engine may name.
func behindTheDoor(pkg string) bool {
	for _, p := range []string{"pipeline", "profiles", "fingerprint", "indexes", "embedders"} {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}
