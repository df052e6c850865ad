// Package hookscmd is the command line's agent-hook commands: hooks
// install, uninstall and status, which edit and read the agent hosts'
// settings files (hookconfig), and hook HOST EVENT, which an agent host
// runs on each event: it reads the event from stdin, picks a running
// serve or the store, does what package hooks says the event does, queues
// and drains captures (capture/queue), and prints the answer the host
// reads. The command group registers itself with app.Register; package
// cli imports it for that, and its tests drive it through cli.Execute.
package hookscmd
