package cli

import (
	"os"
	"syscall"

	"golang.org/x/term"
)

// sigterm stops long commands like SIGINT does.
var sigterm os.Signal = syscall.SIGTERM

// isTerminal reports whether s (a reader or writer) is an interactive
// terminal.
func isTerminal(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalCheck is the isTerminal of every App Execute makes; tests replace
// it to see the progress bar.
var terminalCheck = isTerminal
