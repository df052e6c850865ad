// Package extract proposes typed memories from a session's turns without a
// language model: errors (failing commands, stack traces, test failures)
// linked by "fixes" to the change that made them pass, decisions with their
// reason, the user's preferences and conventions, and facts (tool and
// dependency versions, ports). It reads capture.Turn, whichever host wrote
// them, and returns a capture.Plan; it never writes.
//
//	plan := extract.Session(turns, extract.Options{})
//	for _, c := range plan.Memories { c.NewMemory(project) … }  // AddBatch
//	for _, l := range plan.Links { Link(ids[l.From], ids[l.To], l.Type) }
//
// # Rules
//
// Errors come from shell tool calls (Bash) only: a result flagged as an
// error, or output with a failure signature (--- FAIL, FAILED, panic:,
// Traceback, error[E…], error TS…, npm ERR!, ERROR:). A search that found
// nothing (grep, rg, find, test, exit 1 with no output) is not an error.
// The note is one line chosen from the output by a ranked list of shapes
// (compiler and test-runner lines first, wrapper lines such as "exit status
// 1" or "could not compile" last) and the command. A later run of the same
// command failing the same way is the same error (its lines are added to
// the provenance). The error is fixed by the first later run of the same
// command (or, failing that, of the same program and subcommand; for a
// build failure such as error[E…], error CS…, kotlinc's "e:" or a linker's
// undefined reference, of the same program, since a test run builds first)
// that succeeds or fails differently; the fix note lists the edits and
// state-changing commands between the two runs (files and the lines they
// added). A command changes state when it has a change verb among its
// first three words (install, add, sync, generate, migrate, apply, lock,
// set-url, …) or is one of the few that no verb names (npm ci, go get,
// sed -i, git checkout, composer require, …), and is not a dry run. A passing run of another command with
// nothing changed before it (a narrower test, another seed) fixes nothing.
// An error with no such run stays unlinked. When that run is the same
// command line with nothing changed between (no edit, no state-changing
// command), it was a retry, not a fix: a network failure (timeouts,
// ETIMEDOUT, connection resets, 502/503) gets no memory at all, anything
// else stays an error that says it passed when re-run (flaky), with no fix.
//
// Decisions and preferences are found by rules, and preferences completed by
// a trained sentence classifier (package sentclass): a user's sentence that
// no rule takes becomes a preference when the classifier gives it 0.95 or
// more (Options.Policy; RulesOnly turns it off, and AddDecision lets it add
// decisions too, which on unseen sessions were mostly wrong). The rules:
//
// Decisions are sentences of the user or the assistant (never tool output
// or thinking) with a decision marker ("we'll use X because", "decided",
// "let's go with", "go for the", "I went with", "instead of X … we'll",
// "rather than", "opted for", "let's not X and just use Y") that
// are not inside quotes, not hedged ("I'd suggest", "could", "might"), not
// questions, and not rejected by the user's next prompt ("No, …"). A
// sentence of the assistant with only "we'll use X" (or "we're moving to",
// "let's stay on", "we're standardising on") needs a reason ("because",
// "since", "so that"); the user's does not, and the user's "stick with X",
// "stay on X" and "keep using X" are decisions too. Preferences are the
// user's sentences that set a rule ("always", "never", "don't", "we use",
// "prefer", "from now on", "going forward", "please don't", "whenever
// you", "no X in this repo", "avoid X", "X, not Y", "standing rule", "I want
// every …", "in every X here", or an imperative about commit messages,
// spelling, indentation or doc comments); with a reason they are
// decisions. Facts are read
// from version commands (--version), pinned installs (go get m@v, pip
// pkg==v, npm pkg@v), dependency-file edits (requirements.txt, go.mod,
// package.json, Gemfile, and the TOML manifests' name = "1.2" and
// name = { version = "1.2" }) and "listens on port N".
//
// Version commands are a program with --version, -v, -V, version or
// -version alone ("bundle add x --version 1.3" installs; it is a pin); of a
// multi-line answer only the lines naming the program are kept ("Gradle
// 8.7", not Groovy's). Installs that name a version as a flag (bundle add,
// gem install, dotnet add package, cargo add, composer's vendor/pkg:1.2)
// are pins too.
//
// The classifier exists because rules written one phrasing at a time did not
// carry to the next writer's phrasing: decisions said as "ok, option two
// then" or preferences with no rule word ("one concern per PR, always").
// It was trained on 900 sentences written blind by three helpers
// (testdata/sentences) and on the sentences of seven transcript sets
// (transcripts, heldout … heldout6), labelled by their gold files.
//
// Every candidate carries a confidence in [0, 1] and the rule that made it;
// Options.MinConfidence drops the weaker ones. The rules are measured on the
// labelled fixture in testdata (TestExtractionQuality prints precision and
// recall per kind) and on held-out sets written after them. heldout4 was
// the blind set until the classifier was trained on it; heldout5 and
// heldout6 were written blind after the first classifier, scored once, then
// trained on; heldout7 and heldout8, written blind after the shipped one,
// give the figures an unseen transcript should expect: docs/BENCHMARKS.md
// "Decisions and preferences by a trained classifier".
//
// It must not read files, call a store or a neural model, or keep state
// between calls (the classifier is a table of weights compiled in); Session is a pure function of its input and safe for concurrent use.
package extract
