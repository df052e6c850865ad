// Package servecmd is the command line's server commands: serve (the
// store over HTTP, /v1 and /mcp, with its flags checked, its maintenance
// schedule and its discovery file; serve --install's service unit) and
// mcp (the stdio MCP server, relayed to a running serve when there is
// one). It wires httpapi, mcpserver, serverfile and serviceunit to an open
// store and prints what they answer. The command group registers itself
// with app.Register; package cli imports it for that, and its tests drive
// it through cli.Execute.
package servecmd
