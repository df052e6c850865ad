// Package contradict judges, without a language model, whether a memory
// being written contradicts or updates a stored one of the same project.
//
// It is pure: the caller passes the two texts and the "same subject"
// evidence it already has (the engine's near-duplicate evidence: E1 cosine,
// E6 keyword and E11 entity overlap); Judge aligns the two texts word by
// word and looks for the "different claim": a negation on one side only
// over words the other states ("never localStorage"), an antonym (enable /
// disable, allow / deny, sync / async), or one value replaced by another
// (a port, version, path, host or name) in an otherwise shared sentence.
// A change marker in the new text ("moved to", "upgraded", "no longer",
// "now") makes a conflict an Update rather than a Contradiction, and lets a
// new value with the old one named count as an update.
//
// Besides the alignment, Judge reads each text's typed claims (claims.go):
// the tool of a kind it names (lexicon.go: a project formats its Python
// with one formatter, so "black" / "ruff format" conflict however worded),
// a product's version (Node 20, python:3.12-slim), a setting's value
// (LOG_LEVEL=warn, singleQuote: true), a quantity of a unit, a port, a
// clock time, a time zone or a cloud region. A key the two memories give
// different values, with the old value absent from the new memory or
// retired there ("black isn't used", "rather than pytest", "from X to Y"),
// is a conflict — unless their scopes differ (staging / production,
// .env.development / .env.production), one noun or tool is qualified
// twice ("access tokens" / "refresh tokens", "EU Postgres" / "US
// Postgres"), two names share a part (orders-events / payments-events),
// their paths lie in different top directories, or each names its own
// identifier or command (minSdk / targetSdk, `pnpm dev` / `pnpm
// storybook`). A tool the new memory rules out and replaces by another of
// its kind conflicts whatever the qualifiers. Below the cosine that makes
// a shared subject, two tools of one kind, two regions or two values of
// one named setting still conflict, and every claim counts when both
// memories name one resource.
//
// Precision comes first (a false contradiction hides a true fact): texts
// that differ in more than one place, whose subject differs, that both
// negate, or where the new one adds ("also") are judged None. The labelled
// pairs and their scores are in testdata/ (go test -run TestPairsQuality -v).
// The package must not import the engine or any store.
package contradict
