package cli

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/term"
)

// sigterm stops long commands like SIGINT does.
var sigterm os.Signal = syscall.SIGTERM

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalCheck is the isTerminal of every App Execute makes; tests replace
// it to see the progress bar.
var terminalCheck = isTerminal
