// Package app is what every command of the cgraph command line shares: the
// run's App (its streams, its global flags, PrintJSON, Printf and Warnf),
// the registry of commands (Register, Commands), UsageError and the exit
// codes, opening the store with the installed models (App.OpenStore,
// App.Open, App.OpenRecords) and closing it with them, progress bars drawn
// only on a terminal, the client of a running cgraph serve of the store
// (App.Server) and a search that prefers it (App.Search).
//
// Package cli (Execute, the root command, the commands of memories) and
// the command groups under cli/ (benchcmd, hookscmd, modelscmd, servecmd,
// storecmd) import it; it imports none of them, and it must hold no
// command of its own: a helper goes here only when commands of two
// packages need it.
package app
