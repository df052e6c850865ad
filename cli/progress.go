package cli

import (
	"time"

	"github.com/schollz/progressbar/v3"
)

// drawsProgress reports whether progress bars are drawn: on a terminal
// stderr, never with --json.
func (a *App) drawsProgress() bool {
	return !a.JSON && a.isTerminal != nil && a.isTerminal(a.Stderr)
}

// newBar is a progress bar over total units (-1: a spinner) on stderr in
// the house style — described, 30 wide, redrawn at most every 100 ms,
// cleared when done — with the extra options; nil where drawsProgress
// says no bar is drawn.
func (a *App) newBar(total int64, desc string, extra ...progressbar.Option) *progressbar.ProgressBar {
	if !a.drawsProgress() {
		return nil
	}
	opts := []progressbar.Option{progressbar.OptionSetWriter(a.Stderr), progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish()}
	return progressbar.NewOptions64(total, append(opts, extra...)...)
}

// countBar is a bar over total units that shows the count (nil where no
// bar is drawn).
func (a *App) countBar(total int, desc string) *progressbar.ProgressBar {
	return a.newBar(int64(total), desc, progressbar.OptionShowCount())
}

// progress is add --jsonl's bar (nil where no bar is drawn): lines done of
// lines (-1: a spinner), the rate and the time left, shown from the start.
// A stored line counts when its batch is stored, any other line when read.
func (a *App) progress(lines int64) *progressbar.ProgressBar {
	return a.newBar(lines, "adding", progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("lines"), progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true)) // shown before the first batch is stored
}

// benchProgress draws one progress bar per run (nil where no bar is
// drawn).
func (a *App) benchProgress() func(run string, done, total int) {
	if !a.drawsProgress() {
		return nil
	}
	var bar *progressbar.ProgressBar
	cur := ""
	return func(run string, done, total int) {
		if run != cur {
			cur = run
			bar = a.newBar(int64(total), run)
		}
		_ = bar.Set(done) // drawing errors on a terminal are not worth stopping a bench for
	}
}

// benchIndexProgress draws the ingest progress bar on a terminal stderr.
func (a *App) benchIndexProgress() func(done, total int) { return a.countProgress("indexing") }

// countProgress draws a count bar (countBar) made at the first call, when
// the total is known; it returns nil where no bar is drawn.
func (a *App) countProgress(desc string) func(done, total int) {
	if !a.drawsProgress() {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = a.countBar(total, desc)
		}
		_ = bar.Set(done) // drawing errors on a terminal are not worth stopping a bench for
	}
}
