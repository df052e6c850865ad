package extract

import (
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
	}
	for _, tc := range tests {
		turns := []capture.Turn{{Kind: capture.KindUser, Session: "s", UUIDs: []string{"u"}, Text: tc.text}}
		p := Session(turns, Options{})
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
