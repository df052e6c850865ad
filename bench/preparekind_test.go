package bench

import (
	"errors"
	"strings"
	"testing"

	vocab "github.com/cgraph/cgraph/record"
)

// TestCSNOptions checks how a set kind and --lang make the language, and
// that every bad combination is a validation error saying what was wrong.
func TestCSNOptions(t *testing.T) {
	ok := PrepareOptions{Src: "src", Out: "out", Lang: "go"}
	for _, c := range []struct {
		kind     string
		o        PrepareOptions
		langSet  bool
		wantLang string
		wantErr  string
	}{
		{kind: "csn-go", o: ok, wantLang: "go"},
		{kind: "csn-py", o: ok, wantLang: "python"},
		{kind: "csn-java", o: ok, wantLang: "java"},
		{kind: "csn-js", o: ok, wantLang: "javascript"},
		{kind: "csn", o: PrepareOptions{Src: "s", Out: "o", Lang: "py"}, langSet: true, wantLang: "py"},
		{kind: "csn-python", o: PrepareOptions{Src: "s", Out: "o", Lang: "py"}, langSet: true, wantLang: "py"},
		{kind: "csn-python", o: PrepareOptions{Src: "s", Out: "o", Lang: "go"}, langSet: true, wantErr: "csn-python conflicts with --lang go: drop --lang"},
		{kind: "csn-rust", o: ok, wantLang: "rust"},
		{kind: "csn-php", o: ok, wantLang: "php"},
		{kind: "csn-ruby", o: ok, wantErr: `unknown set kind "csn-ruby"`},
		{kind: "csn-go", o: PrepareOptions{Out: "o"}, wantErr: "--src is missing"},
		{kind: "csn-go", o: PrepareOptions{Src: "s"}, wantErr: "--out is missing"},
		{kind: "csn-go", o: PrepareOptions{Src: "s", Out: "o", Max: -1}, wantErr: "--max -1 is negative"},
		{kind: "csn", o: PrepareOptions{Src: "s", Out: "o", Lang: "cobol"}, langSet: true, wantErr: `unknown --lang "cobol"`},
	} {
		got, err := CSNOptions(c.kind, c.o, c.langSet)
		if c.wantErr != "" {
			var ve *vocab.ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("CSNOptions(%q, %+v) = %v, want a validation error holding %q", c.kind, c.o, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.Lang != c.wantLang {
			t.Errorf("CSNOptions(%q, %+v) = lang %q, %v; want %q", c.kind, c.o, got.Lang, err, c.wantLang)
		}
	}
}

// TestNormLang pins the short language names and MTEBTaskNames' list.
func TestNormLang(t *testing.T) {
	for in, want := range map[string]string{"py": "python", "js": "javascript", "go": "go", "java": "java", "": ""} {
		if got := NormLang(in); got != want {
			t.Errorf("NormLang(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MTEBTaskNames(); !strings.Contains(got, MTEBCodeTasks[0].Name+", ") || strings.Count(got, ", ") != len(MTEBCodeTasks)-1 {
		t.Errorf("MTEBTaskNames() = %q", got)
	}
}
