// Package storecmd is the command line's upkeep of a store as a whole:
// check (and check --repair), log and undo (the audit of applied
// maintenance), backup and fill (the slots deferred writes left pending).
// It binds their flags, calls the engine and ops, and prints what they
// report. The command group registers itself with app.Register; package
// cli imports it for that, and its tests drive it through cli.Execute.
package storecmd
