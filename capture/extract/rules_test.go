package extract

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/capture"
	"github.com/cgraph/cgraph/record"
)

func TestDecisionSentences(t *testing.T) {
	tests := []struct {
		s    string
		user bool
		want bool
	}{
		{"We'll use pgx directly rather than GORM because we want explicit SQL.", true, true},
		{"I'll use native fetch instead of axios, because it removes a dependency.", false, true},
		{"We decided to keep the v1 endpoints for a release.", false, true},
		{"Let's go with Postgres.", true, true},
		{"Agreed, we'll use Alembic for all schema changes.", true, true},
		{"I'll use the Read tool to look at the file.", false, false},                              // procedural, no reason
		{"Let's try freezing the clock with fake timers.", false, false},                           // an experiment
		{"I'd suggest Alembic rather than create_all, because it can alter tables.", false, false}, // a proposal
		{`The README says "we chose an interface because mocks need Sleep".`, false, false},        // quoted
		{"It needs its own now field rather than the bare name.", false, false},                    // no choice verb
		{"Should we use an interface?", true, false},
		{"We're moving to pnpm workspaces, because hoisting keeps breaking the build.", true, true},
		{"Let's stay on Postgres 15 for now, since the extension doesn't build against 16.", true, true},
		{"We're standardising on JUnit 5.", true, true},
		{"We're going to need a bigger cache.", true, false},     // no choice verb
		{"We're using the staging cluster today.", false, false}, // says what is, chooses nothing
		{"I went with async/await over Combine, since Combine doesn't exist on Linux.", false, true},
		{"One option would be to go for the cache.", false, false}, // hedged
	}
	for _, tc := range tests {
		_, got := decision(tc.s, tc.user)
		if tc.s[len(tc.s)-1] == '?' {
			got = false // Session drops questions before judging
		}
		if got != tc.want {
			t.Errorf("decision(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestUserSentences(t *testing.T) {
	tests := []struct {
		text string
		want capture.Kind // "" for nothing
	}{
		{"Also, we always write table-driven tests in this repo.", capture.KindPreference},
		{"Please always pin image tags; never use latest.", capture.KindPreference},
		{"Don't add default exports anywhere.", capture.KindPreference},
		{"From now on we pin exact versions, since loose pins broke the last deploy.", capture.KindDecision},
		{"No Redis please, we don't want to run another service for this.", capture.KindDecision},
		{"No, keep it as plain functions.", capture.KindDecision},
		{"Don't worry about the lint errors.", ""},
		{"I don't know why CI is red.", ""},
		{"Can you always run the tests first?", ""},
		{"Add react-router-dom v6 so we can do nested routes.", ""},
		{"No — stick with log/slog from the standard library.", capture.KindDecision},
		{"Let's keep using the old endpoint.", capture.KindDecision},
		{"Btw we're on JUnit 5 only in this repo, please don't ever add JUnit 4 imports.", capture.KindPreference},
		{"also - no naked returns in this codebase please", capture.KindPreference},
		{"Whenever you add an env var, add it to .env.example too.", capture.KindPreference},
		{"Going forward, prefix commits with the ticket id.", capture.KindPreference},
		{"There's no test in this repo for that yet.", ""}, // "no … in this repo" that states, not rules
		{"Please rename total to sum.", ""},                // a one-off instruction
		{"And please prefix commit messages with the ticket id.", capture.KindPreference},
		{"Use British spelling in user-facing strings.", capture.KindPreference},
		{"Standing rule: I want every public method to have XML doc comments.", capture.KindPreference},
		{"Please keep it that way in every Makefile here.", capture.KindPreference},
		{"Tabs, not spaces, in Makefiles.", capture.KindPreference},
		{"Avoid lodash, this package has zero runtime dependencies.", capture.KindPreference},
		{"ok, go for the feature flag approach with Flipper.", capture.KindDecision},
		{"Let's not bother with the UI and just use the console for now.", capture.KindDecision},
		{"We're dropping support for Node 16, it's been EOL for ages.", capture.KindDecision},
		{"Write a docstring for parse.", ""},              // one function, once
		{"Please add a test for every handler here.", ""}, // a task over many, not a rule
	}
	for _, tc := range tests {
		turns := []capture.Turn{{Kind: capture.KindUser, Session: "s", UUIDs: []string{"u"}, Text: tc.text}}
		p := Session(turns, Options{Policy: RulesOnly})
		var got capture.Kind
		if len(p.Memories) > 0 {
			got = p.Memories[0].Kind
		}
		if got != tc.want || len(p.Memories) > 1 {
			t.Errorf("%q: got %v (%d memories), want %q", tc.text, got, len(p.Memories), tc.want)
		}
	}
}

func TestRejectedProposal(t *testing.T) {
	turns := []capture.Turn{
		{Kind: capture.KindAssistant, Session: "s", UUIDs: []string{"a"}, Text: "Let's go with a class-based client."},
		{Kind: capture.KindUser, Session: "s", UUIDs: []string{"u"}, Text: "No, keep it as plain functions."},
	}
	p := Session(turns, Options{})
	if len(p.Memories) != 1 || p.Memories[0].UUIDs[0] != "u" {
		t.Fatalf("want only the user's decision, got %+v", p.Memories)
	}
}

func bash(uuid, cmd, out string, isErr bool) capture.Turn {
	return capture.Turn{Kind: capture.KindTool, Session: "s", UUIDs: []string{uuid},
		Tool: &capture.ToolCall{Name: "Bash", Input: map[string]any{"command": cmd}, Output: out, IsError: isErr, HasResult: true}}
}

func edit(uuid, file, old, new string) capture.Turn {
	return capture.Turn{Kind: capture.KindTool, Session: "s", UUIDs: []string{uuid}, Files: []string{file},
		Tool: &capture.ToolCall{Name: "Edit", Input: map[string]any{"file_path": file, "old_string": old, "new_string": new}, HasResult: true}}
}

func TestErrorsAndFixes(t *testing.T) {
	fail := "Exit code 1\n--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1, want 2\nFAIL\nFAIL\tm/x\t0.01s"
	tests := []struct {
		name       string
		turns      []capture.Turn
		errs, fixs int
		fixHas     string
	}{
		{"fixed by an edit", []capture.Turn{bash("1", "go test ./x/", fail, true), edit("2", "x/x.go", "a := 1", "a := 2"), bash("3", "go test ./x/", "ok m/x", false)}, 1, 1, "a := 2"},
		{"repeat merged, fixed later", []capture.Turn{bash("1", "go test ./x/", fail, true), bash("2", "go test ./x/", fail, true), edit("3", "x/x.go", "b", "c := 3"), bash("4", "go test ./x/", "ok", false)}, 1, 1, "c := 3"},
		{"never fixed", []capture.Turn{bash("1", "go test ./x/", fail, true), bash("2", "git status", "clean", false)}, 1, 0, ""},
		{"grep without match is no error", []capture.Turn{bash("1", "grep -rn foo .", "Exit code 1", true)}, 0, 0, ""},
		{"install then rerun", []capture.Turn{bash("1", "npm install a@6", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree", true), bash("2", "npm install b@18.2.0", "added 1", false), bash("3", "npm install a@6", "added 3", false)}, 1, 1, "b@18.2.0"},
		{"signature without the error flag", []capture.Turn{bash("1", "make test", "panic: runtime error: index out of range [3]", false)}, 1, 0, ""},
		{"network failure gone on retry", []capture.Turn{bash("1", "npm install", "npm ERR! code ETIMEDOUT\nnpm ERR! network request failed, reason: connect ETIMEDOUT 1.2.3.4:443", true), bash("2", "npm install", "added 812 packages", false)}, 0, 0, ""},
		{"network failure fixed by a change", []capture.Turn{bash("1", "npm install", "npm ERR! code ETIMEDOUT\nnpm ERR! connect ETIMEDOUT", true), bash("2", "npm config set registry https://mirror.example/", "", false), bash("3", "npm install", "added 812 packages", false)}, 1, 1, "npm config set"},
		{"flaky test: an error, no fix", []capture.Turn{bash("1", "go test ./x/", fail, true), bash("2", "go test ./x/", "ok m/x", false)}, 1, 0, ""},
		{"a narrower run passing fixes nothing", []capture.Turn{bash("1", "mix test", "  1) test x (XTest)\n     ** (DBConnection.OwnershipError) cannot find ownership process", true), bash("2", "mix test test/x_test.exs --seed 0", "3 tests, 0 failures", false)}, 1, 0, ""},
		{"a build error fixed, then the tests pass", []capture.Turn{bash("1", "dotnet build src/R", "R.cs(1,7): error CS0246: The type or namespace name 'Polly' could not be found\n\nBuild FAILED.", true), bash("2", "dotnet add src/R package Polly.Core --version 8.3.1", "info : PackageReference for package 'Polly.Core' version '8.3.1' added", false), bash("3", "dotnet test", "Passed!  - Failed:     0, Passed:    17", false)}, 1, 1, "Polly.Core"},
		{"a test failure is not fixed by another subcommand", []capture.Turn{bash("1", "go test ./x/", fail, true), edit("2", "x/x.go", "a := 1", "a := 2"), bash("3", "go vet ./...", "", false)}, 1, 0, ""},
		{"sudo install then the same command passes", []capture.Turn{bash("1", "composer require a/b:5.3.0", "Your requirements could not be resolved to an installable set of packages.\n\n  Problem 1\n    - a/b 5.3.0 requires ext-intl * -> it is missing from your system.", true), bash("2", "sudo apt-get install -y php8.3-intl", "Setting up php8.3-intl", false), bash("3", "composer require a/b:5.3.0", "Writing lock file", false)}, 1, 1, "php8.3-intl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Session(tc.turns, Options{})
			var errs, fixs int
			for _, m := range p.Memories {
				switch m.Kind {
				case capture.KindError:
					errs++
				case capture.KindFix:
					fixs++
					if !strings.Contains(m.Content, tc.fixHas) {
						t.Errorf("fix %q lacks %q", m.Content, tc.fixHas)
					}
				}
			}
			if errs != tc.errs || fixs != tc.fixs || len(p.Links) != tc.fixs {
				t.Fatalf("errors %d fixes %d links %d, want %d %d %d: %+v", errs, fixs, len(p.Links), tc.errs, tc.fixs, tc.fixs, p.Memories)
			}
			for _, l := range p.Links {
				if l.Type != record.RelFixes || p.Memories[l.From].Kind != capture.KindFix || p.Memories[l.To].Kind != capture.KindError {
					t.Errorf("link %+v is not fix→error", l)
				}
			}
		})
	}
}

func TestHeadline(t *testing.T) {
	tests := []struct{ out, want string }{
		{"   Compiling x\nerror[E0502]: cannot borrow `a` as mutable\n  --> src/a.rs:1:1\nerror: could not compile `x`", "error[E0502]: cannot borrow `a` as mutable"},
		{"Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: bad\n", "ValueError: bad"},
		{"#8 0.4 go: go.mod requires go >= 1.22 (running go 1.21)\n#8 ERROR: process \"/bin/sh -c go mod download\" did not complete successfully: exit code: 1", "#8 0.4 go: go.mod requires go >= 1.22 (running go 1.21)"},
		{"thread 't' panicked at tests/a.rs:1:1:\ncalled `Result::unwrap()` on an `Err` value: Connection refused", "thread 't' panicked at tests/a.rs:1:1:: called `Result::unwrap()` on an `Err` value: Connection refused"},
		{"make: Entering directory '/src/tools'\nMakefile:6: *** missing separator.  Stop.\nmake: Leaving directory '/src/tools'", "Makefile:6: *** missing separator.  Stop."},
		{"> Task :server:compileKotlin FAILED\ne: file:///s/A.kt:3:18 Unresolved reference: client\n\nFAILURE: Build failed with an exception.", "e: file:///s/A.kt:3:18 Unresolved reference: client"},
		{"    discounts orders (FAILED - 1)\n\n  1) BulkDiscount#apply\n     Failure/Error: x.sum(&:subtotal)\n\n     NoMethodError:\n       undefined method `subtotal' for LineItem\n", "NoMethodError:: undefined method `subtotal' for LineItem"},
		{"Your requirements could not be resolved to an installable set of packages.\n\n  Problem 1\n    - Root composer.json requires a/b 5.3.0 -> satisfiable by a/b[5.3.0].\n    - a/b 5.3.0 requires ext-intl * -> it is missing from your system.", "Your requirements could not be resolved to an installable set of packages.: - a/b 5.3.0 requires ext-intl * -> it is missing from your system."},
	}
	for _, tc := range tests {
		if got, _ := headline(tc.out); got != tc.want {
			t.Errorf("headline = %q, want %q", got, tc.want)
		}
	}
}

func TestDeterministicAndKeyed(t *testing.T) {
	turns := []capture.Turn{bash("1", "go test ./x/", "Exit code 1\n--- FAIL: TestX", true), edit("2", "x.go", "a", "b := 1"), bash("3", "go test ./x/", "ok", false)}
	a, b := Session(turns, Options{}), Session(turns, Options{})
	if len(a.Memories) != len(b.Memories) {
		t.Fatal("two runs differ")
	}
	for i := range a.Memories {
		if a.Memories[i].Key() != b.Memories[i].Key() || a.Memories[i].Content != b.Memories[i].Content {
			t.Errorf("memory %d differs between runs", i)
		}
	}
	if got := Session(turns, Options{MinConfidence: 0.99}); len(got.Memories) != 0 || len(got.Links) != 0 {
		t.Errorf("MinConfidence 0.99 kept %d memories, %d links", len(got.Memories), len(got.Links))
	}
}

func TestFlakyNamed(t *testing.T) {
	p := Session([]capture.Turn{bash("1", "go test ./x/", "Exit code 1\n--- FAIL: TestX (0.00s)", true), bash("2", "go test ./x/", "ok m/x", false)}, Options{})
	if len(p.Memories) != 1 || !strings.Contains(p.Memories[0].Content, "flaky") {
		t.Fatalf("want one error that says it passed on a retry, got %+v", p.Memories)
	}
}

var depName = regexp.MustCompile(`^[A-Za-z][\w-]*`)

func TestDependencyEditFacts(t *testing.T) {
	tests := []struct {
		file, old, new string
		want           []string // the names of the facts, in order
	}{
		{"Cargo.toml", "serde = \"1.0\"", "serde = \"1.0\"\ntokio = { version = \"1.38\", features = [\"macros\"] }\nanyhow = \"1.0.86\"", []string{"tokio", "anyhow"}},
		{"Cargo.toml", "", "[package]\nname = \"x\"\nversion = \"0.2.1\"\nrust-version = \"1.74\"\nedition = \"2021\"", nil},
		{"pyproject.toml", "", "[tool.poetry.dependencies]\nhttpx = \"^0.27.0\"", []string{"httpx"}},
		{"requirements.txt", "", "requests>=2.31\nflask==3.0.3", []string{"requests", "flask"}},
		{"notes.toml", "", "tokio = \"1.38\"", nil}, // not a manifest
	}
	for _, tc := range tests {
		p := Session([]capture.Turn{edit("1", tc.file, tc.old, tc.new)}, Options{})
		var got []string
		for _, m := range p.Memories {
			if m.Kind == capture.KindFact {
				got = append(got, depName.FindString(strings.TrimPrefix(m.Content, "Fact: "+tc.file+" pins ")))
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: facts %q, want %q (%+v)", tc.file, got, tc.want, p.Memories)
		}
	}
}

func TestVersionCommandFacts(t *testing.T) {
	tests := []struct {
		cmd, out string
		want     []string // substrings, one per fact, in order
	}{
		{"ruby -v", "ruby 3.3.0 (2023-12-25 revision 5124f9ac75) [x86_64-linux]", []string{"ruby 3.3.0"}},
		{"./gradlew --version", "\n----\nGradle 8.7\n----\nKotlin:       1.9.22\nGroovy:       3.0.17\nOS:           Linux 6.5.0-27-generic amd64", []string{"Gradle 8.7"}},
		{"elixir --version", "Erlang/OTP 26 [erts-14.2.3] [source]\n\nElixir 1.16.2 (compiled with Erlang/OTP 26)", []string{"Elixir 1.16.2"}},
		{"helm version", `version.BuildInfo{Version:"v3.14.3", GitCommit:"f03cc04caaa8f6d7c3e67cf918929150cf6f3f12", GitTreeState:"clean", GoVersion:"go1.21.7"}`, []string{"helm version: v3.14.3"}},
		{"python3 --version && pip --version", "Python 3.12.3\npip 24.0 from /x (python 3.12)", []string{"python3 version: Python 3.12.3", "pip version: pip 24.0"}},
		{`bundle add flipper --version "1.3.0"`, "Fetching flipper 1.3.0\nInstalling flipper 1.3.0", []string{"version 1.3.0 (installed with `bundle add flipper"}},
		{"composer require vendor/phone:5.3.0", "Writing lock file", []string{"vendor/phone:5.3.0"}},
		{"go test ./... -v", "ok m 0.1s", nil}, // -v is not a version here
		{"corepack enable && pnpm --version", "9.4.0", []string{"pnpm version: 9.4.0"}},
	}
	for _, tc := range tests {
		p := Session([]capture.Turn{bash("1", tc.cmd, tc.out, false)}, Options{})
		var got []string
		for _, m := range p.Memories {
			if m.Kind == capture.KindFact {
				got = append(got, m.Content)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: facts %q, want %d like %q", tc.cmd, got, len(tc.want), tc.want)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: fact %q lacks %q", tc.cmd, got[i], w)
			}
		}
	}
}

func TestMutates(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"npm install react@18.2.0", true},
		{"sudo apt-get install -y php8.3-intl", true},
		{"buf generate", true},
		{"uv sync", true},
		{"ansible-galaxy collection install grafana.grafana", true},
		{"git remote set-url origin git@github.com:o/r.git", true},
		{"nix flake lock --update-input nixpkgs && nix build .#default", true},
		{"flyway -configFiles=conf/flyway.conf migrate", true},
		{"go test ./...", false},
		{"cargo clippy --all-targets -- -D warnings", false},
		{"terraform plan -out=tfplan", false},
		{"npm run build", false},
		{"ls src/install", false}, // a word in a path, past the first three
		{"npm install --dry-run", false},
		{"git status", false},
	}
	for _, tc := range tests {
		if got := mutates(tc.cmd); got != tc.want {
			t.Errorf("mutates(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

// TestClassifierCompletesRules checks what the classifier adds to the
// rules: sentences with no rule word that state a decision or a standing
// rule, and look-alikes it must leave alone. The sentences were written for
// this test after the first model was trained, and are in none of its
// sources. Preferences are checked under DefaultPolicy, decisions under a
// policy that lets the classifier add them at 0.7 (the default does not),
// look-alikes under both. The model is statistical: the test gates on no
// look-alike kept and on at least a third of each kind found, and logs every
// miss; the held-out figures are what measure it (docs/BENCHMARKS.md,
// "Decisions and preferences by a trained classifier").
func TestClassifierCompletesRules(t *testing.T) {
	decisionsToo := DefaultPolicy
	decisionsToo.AddDecision = 0.7
	tests := []struct {
		text string
		want capture.Kind
	}{
		{"ok, option two then — the worker pool.", capture.KindDecision},
		{"We'll park the GraphQL idea and stay on plain REST for this release.", capture.KindDecision},
		{"alright, sqlite for the prototype, postgres later", capture.KindDecision},
		{"I want snake_case for every column name.", capture.KindPreference},
		{"Commit messages in the imperative mood, please.", capture.KindPreference},
		{"one concern per PR, always", capture.KindPreference},
		{"Please add a retry around the flaky upload call.", ""},
		{"The scheduler never runs two jobs at once.", ""},
		{"Thanks, that looks right.", ""},
		{"hmm, not sure about the cache yet", ""},
		{"Can you check why the linter complains.", ""},
		{"The tests pass now.", ""},
	}
	found, positives := map[capture.Kind]int{}, map[capture.Kind]int{}
	for _, tc := range tests {
		for _, pol := range []Policy{DefaultPolicy, decisionsToo} {
			if tc.want == capture.KindDecision && pol == DefaultPolicy || tc.want == capture.KindPreference && pol != DefaultPolicy {
				continue
			}
			turns := []capture.Turn{{Kind: capture.KindUser, Session: "s", UUIDs: []string{"u"}, Text: tc.text}}
			p := Session(turns, Options{Policy: pol})
			var got capture.Kind
			if len(p.Memories) > 0 {
				got = p.Memories[0].Kind
			}
			switch {
			case tc.want == "" && got != "":
				t.Errorf("%q: kept as %s (policy %+v), want nothing", tc.text, got, pol)
			case tc.want != "" && got == tc.want && len(p.Memories) == 1:
				found[tc.want]++
			case tc.want != "":
				t.Logf("%q: got %q (%d memories), want %s", tc.text, got, len(p.Memories), tc.want)
			}
			if tc.want != "" {
				positives[tc.want]++
			}
		}
	}
	for k, n := range positives {
		if 3*found[k] < n {
			t.Errorf("found %d of %d %ss, want at least a third", found[k], n, k)
		}
	}
}

func TestSentencesCarryTheOtherSide(t *testing.T) {
	turns := []capture.Turn{
		{Kind: capture.KindUser, Text: "Cache the rates. Which store?"},
		{Kind: capture.KindAssistant, Text: "Either Redis or an in-process LRU would do."},
		{Kind: capture.KindTool, Tool: &capture.ToolCall{Name: "Bash"}},
		{Kind: capture.KindUser, Text: "the LRU."},
		{Kind: capture.KindUser, Text: "Thanks."},
	}
	got := Sentences(turns)
	want := []Sentence{
		{User: true, Text: "Cache the rates.", Turn: 0},
		{Text: "Either Redis or an in-process LRU would do.", Prev: "Cache the rates. Which store?", Turn: 1},
		{User: true, Text: "the LRU.", Prev: "Either Redis or an in-process LRU would do.", Turn: 3},
		{User: true, Text: "Thanks.", Turn: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sentences =\n%+v\nwant\n%+v", got, want)
	}
}
