package app

import (
	"time"

	"github.com/schollz/progressbar/v3"
)

// DrawsProgress reports whether progress bars are drawn: on a terminal
// stderr, never with --json.
func (a *App) DrawsProgress() bool {
	return !a.JSON && a.IsTerminal != nil && a.IsTerminal(a.Stderr)
}

// NewBar is a progress bar over total units (-1: a spinner) on stderr in
// the house style — described, 30 wide, redrawn at most every 100 ms,
// cleared when done — with the extra options; nil where DrawsProgress
// says no bar is drawn.
func (a *App) NewBar(total int64, desc string, extra ...progressbar.Option) *progressbar.ProgressBar {
	if !a.DrawsProgress() {
		return nil
	}
	opts := []progressbar.Option{progressbar.OptionSetWriter(a.Stderr), progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish()}
	return progressbar.NewOptions64(total, append(opts, extra...)...)
}

// CountBar is a bar over total units that shows the count (nil where no
// bar is drawn).
func (a *App) CountBar(total int, desc string) *progressbar.ProgressBar {
	return a.NewBar(int64(total), desc, progressbar.OptionShowCount())
}

// Progress is add --jsonl's bar (nil where no bar is drawn): lines done of
// lines (-1: a spinner), the rate and the time left, shown from the start.
// A stored line counts when its batch is stored, any other line when read.
func (a *App) Progress(lines int64) *progressbar.ProgressBar {
	return a.NewBar(lines, "adding", progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("lines"), progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetRenderBlankState(true)) // shown before the first batch is stored
}

// BenchProgress draws one progress bar per run (nil where no bar is
// drawn).
func (a *App) BenchProgress() func(run string, done, total int) {
	if !a.DrawsProgress() {
		return nil
	}
	var bar *progressbar.ProgressBar
	cur := ""
	return func(run string, done, total int) {
		if run != cur {
			cur = run
			bar = a.NewBar(int64(total), run)
		}
		_ = bar.Set(done) // drawing errors on a terminal are not worth stopping a bench for
	}
}

// BenchIndexProgress draws the ingest progress bar on a terminal stderr.
func (a *App) BenchIndexProgress() func(done, total int) { return a.CountProgress("indexing") }

// CountProgress draws a count bar (CountBar) made at the first call, when
// the total is known; it returns nil where no bar is drawn.
func (a *App) CountProgress(desc string) func(done, total int) {
	if !a.DrawsProgress() {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = a.CountBar(total, desc)
		}
		_ = bar.Set(done) // drawing errors on a terminal are not worth stopping a bench for
	}
}
