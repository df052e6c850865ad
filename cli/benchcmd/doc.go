// Package benchcmd is the command line's benchmark commands: bench
// prepare, run, compare and ablate, and profiles (list, show, learn). It
// binds their flags, calls the jobs of bench and benchstore, and prints
// their answers; the orchestration, checks and report text live there.
// The command group registers itself with app.Register; package cli
// imports it for that, and its tests drive it through cli.Execute.
package benchcmd
