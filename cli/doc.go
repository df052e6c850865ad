// Package cli implements the cgraph command line: every command, its flags, its
// human and --json output, and its error messages. cmd/cgraph only calls Execute.
package cli
