package codeview

import (
	"strings"
	"testing"

	"github.com/cgraph/cgraph/embedders/keywords"
)

func TestIsCode(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"func (c *Cache) evictOldest() {\n\tdelete(c.items, c.order[0])\n}", true},
		{"function (a, b) {\n  return a + b;\n}", true}, // anonymous: no name
		{"for x in xs:\n    total += x\nprint(total)", true},
		{"class Cache {\n  private final Map<String, Entry> items;\n}", true},
		{"if err != nil {\n\treturn fmt.Errorf(\"open: %w\", err)\n}", true},
		{"lambda x: x + 1", false}, // one line, no definition: too little to tell
		{"X.prototype._validate =\n  function X_validate(\n    a,\n    b\n  ) {\n    return a\n  }", true},
		{"#skip (encoding, status) {\n  if (!encoding) return true\n  return false\n}", true}, // a JS private method, not a comment
		{"# Release notes\n\nWe moved to Go 1.23.\nThe cache is faster now.", false},
		{"We kept the old parser\nfor the users who pin it,\nif they ask; then\nreturn to it in May.", false},
		{"We chose RocksDB for three reasons,\nall measured on the bench machine,\nnone of them final.", false}, // wrapped prose ends in ","
		{"The cache was stale because the writer never flushed.", false},
		{"Decided: keep WRRF as the default fusion (ARCH-21).\nMin-max stays opt-in.", false},
		{"Fix: the build failed due to a missing CGO_LDFLAGS; set it in the Makefile.\nThen run make test.", false},
		{"- pin grocksdb at v1.7.15\n- librocksdb-dev 7.8.3 lacks newer C functions\n- see docs/DEPS.md", false},
		{"Zero PEBS status (CVE-2021-28971)", false},
		{"", false},
	} {
		if got := IsCode(c.text); got != c.want {
			t.Errorf("IsCode(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func FuzzIsCode(f *testing.F) {
	for _, s := range []string{"func f() {\n}", "a;\nb;", "x:", "}", "\xff;\n;", "if:\n  y = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := IsCode(text)
		if got != IsCode(text) {
			t.Fatal("not deterministic")
		}
		if name, _ := keywords.DefinedName(text); got && name == "" && !strings.Contains(strings.TrimSpace(text), "\n") {
			t.Fatalf("IsCode(%q): one line without a definition read as code", text)
		}
	})
}
