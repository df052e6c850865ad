package serviceunit

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes r as `cgraph serve --install` (install) or
// `--uninstall` prints it: what was done to the file, the backup kept,
// and the commands that were run or that start (stop) the server.
func (r Result) WriteText(w io.Writer, install bool) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	switch r.Action {
	case "unchanged":
		p("%s is already installed as it would be written: nothing changed\n", r.File)
	case "created", "updated":
		p("%s %s (%s)\n", r.Action, r.File, r.Platform)
	case "removed":
		p("removed %s\n", r.File)
	case "none":
		p("no %s: nothing to remove\n", r.File)
	}
	if r.Action != "none" {
		if r.Backup != "" {
			p("the file it replaced is kept in %s\n", r.Backup)
		}
		switch {
		case r.Ran:
			p("ran: %s\n", strings.Join(r.Commands, "; "))
		case install:
			p("start it now and at every login with:\n  %s\n", strings.Join(r.Commands, " && "))
		default:
			p("if it is running, stop it with:\n  %s\n", strings.Join(r.Commands, " && "))
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}
