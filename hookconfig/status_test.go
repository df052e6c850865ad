package hookconfig

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSurvey: the stores the installed hooks of several files use are
// listed once each, absolute, the default standing for a hook without
// --db; a file that is not valid JSON is reported broken; with no hook
// installed anywhere the default store is the one listed.
func TestSurvey(t *testing.T) {
	dir := t.TempDir()
	host := Hosts[0]
	target := func(name string) Target {
		return Target{Host: host, Scope: ScopeProject, Path: filepath.Join(dir, name, host.Dir, host.File)}
	}
	install := func(tg Target, db string) {
		f, err := ReadFile(tg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := PlanInstall(tg, f, host.Events, Command{Binary: "/usr/bin/cgraph", DB: db})
		if err != nil {
			t.Fatal(err)
		}
		if err := Apply(tg, f, c, true); err != nil {
			t.Fatal(err)
		}
	}
	a, b, none, bad := target("a"), target("b"), target("none"), target("bad")
	install(a, "/stores/one")
	install(b, "")
	if err := os.MkdirAll(filepath.Dir(bad.Path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad.Path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	sts, stores, broken := Survey([]Target{a, b, none, bad}, "/stores/default")
	if len(sts) != 4 || !sts[0].Exists || sts[2].Exists {
		t.Errorf("statuses: %+v", sts)
	}
	if want := []string{"/stores/one", "/stores/default"}; !slices.Equal(stores, want) {
		t.Errorf("stores %v, want %v", stores, want)
	}
	if len(broken) != 1 || sts[3].Error != broken[0] {
		t.Errorf("broken %v, bad file's status %+v", broken, sts[3])
	}
	if _, stores, _ := Survey([]Target{none}, "rel/store"); len(stores) != 1 || !filepath.IsAbs(stores[0]) || filepath.Base(stores[0]) != "store" {
		t.Errorf("nothing installed: stores %v, want the default, absolute", stores)
	}
}
