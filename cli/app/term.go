package app

import (
	"os"

	"golang.org/x/term"
)

// IsTerminalFile reports whether s (a reader or writer) is an interactive
// terminal.
func IsTerminalFile(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// TerminalCheck is the IsTerminalFile of every App Execute makes; tests replace
// it to see the progress bar.
var TerminalCheck = IsTerminalFile
