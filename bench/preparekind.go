package bench

import (
	"strings"

	vocab "github.com/cgraph/cgraph/record"
)

// CSNOptions reads `bench prepare KIND` for a CodeSearchNet-style set:
// kind is csn-go, csn-python (csn-py), csn-java, csn-javascript (csn-js),
// csn-php, csn-rust (csn-rs)
// or csn (the language from o.Lang); langSet says --lang was given, and
// then it must agree with the kind. It returns o with the language set,
// or a *vocab.ValidationError naming the flag and how to fix it (a
// missing --src or --out, a negative --max, an unknown kind or language).
func CSNOptions(kind string, o PrepareOptions, langSet bool) (PrepareOptions, error) {
	bad := func(fix, format string, args ...any) (PrepareOptions, error) {
		return o, vocab.Invalidf(fix, format, args...)
	}
	lang := ""
	switch kind {
	case "csn-go":
		lang = "go"
	case "csn-python", "csn-py":
		lang = "python"
	case "csn-java":
		lang = "java"
	case "csn-javascript", "csn-js":
		lang = "javascript"
	case "csn-rust", "csn-rs":
		lang = "rust"
	case "csn-php":
		lang = "php"
	case "csn":
	default:
		return bad("use csn-go, csn-python, csn-java, csn-javascript, csn-php, csn-rust or mteb:TASK", "unknown set kind %q", kind)
	}
	if langSet && lang != "" && NormLang(o.Lang) != lang {
		return bad("drop --lang or use the matching kind", "%s conflicts with --lang %s", kind, o.Lang)
	}
	if !langSet && lang != "" {
		o.Lang = lang
	}
	if o.Src == "" {
		return bad("give the source tree, e.g. --src \"$(go env GOROOT)/src\"", "--src is missing")
	}
	if o.Out == "" {
		return bad("give an output directory with --out DIR", "--out is missing")
	}
	if o.Max < 0 {
		return bad("give --max 0 (all) or a positive count", "--max %d is negative", o.Max)
	}
	if _, err := ExtractorFor(o.Lang); err != nil {
		return o, &vocab.ValidationError{Problem: err.Error()}
	}
	return o, nil
}

// NormLang is a language's full name for the short ones --lang takes
// (py, js); other names are returned as given.
func NormLang(l string) string {
	switch l {
	case "py":
		return "python"
	case "js":
		return "javascript"
	case "rs":
		return "rust"
	}
	return l
}

// MTEBTaskNames lists the names of MTEBCodeTasks, comma-separated, as the
// help of `bench prepare mteb:TASK` names them.
func MTEBTaskNames() string {
	names := make([]string, len(MTEBCodeTasks))
	for i, t := range MTEBCodeTasks {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
