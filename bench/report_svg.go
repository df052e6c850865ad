package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The two plots of a report are forest plots: one row per run, one panel per
// metric (quality) or per pipeline stage (latency), sharing the rows, so a
// run's name is written once, horizontally, at any length (the label column
// is as wide as the longest name). Quality rows are sorted by the headline
// metric, best on top; latency rows keep that order, so a row is the same
// run in both plots. Sizes grow with the number of runs and panels.

// Figure geometry.
const (
	rowHeight      = 0.26 * vg.Inch // one run
	panelOverhead  = 0.85 * vg.Inch // a panel's title and x axis
	qualityPanelW  = 2.5 * vg.Inch
	latencyPanelW  = 2.0 * vg.Inch
	labelPad       = 0.3 * vg.Inch // between the longest run name and the first panel
	panelGap       = 0.2 * vg.Inch // between panels, room for an edge tick label
	rightMargin    = 0.25 * vg.Inch
	titleFontSize  = 13
	tickFontSize   = 9
	minFigureWidth = 6 * vg.Inch
	minRows        = 4 // a figure of fewer runs is as tall as this many
)

// Verdict colours, shared by the points and the legend.
var (
	colWin      = color.RGBA{R: 0, G: 140, B: 60, A: 255}
	colLoss     = color.RGBA{R: 200, G: 30, B: 30, A: 255}
	colTie      = color.RGBA{R: 80, G: 80, B: 80, A: 255}
	colBaseline = color.RGBA{R: 30, G: 90, B: 210, A: 255}
	colRowLine  = color.RGBA{R: 225, G: 225, B: 225, A: 255}
)

func verdictColor(v string) color.Color {
	switch v {
	case VerdictWin:
		return colWin
	case VerdictLoss:
		return colLoss
	case VerdictBaseline:
		return colBaseline
	}
	return colTie
}

// legendItem is one coloured dot and its meaning.
type legendItem struct {
	color color.Color
	text  string
}

// figure is a row of panels sharing one axis of runs, under a title, a
// subtitle and a legend.
type figure struct {
	title, subtitle string
	legend          []legendItem
	labels          []string // row labels, top row first
	panels          []*plot.Plot
	panelW          vg.Length
}

// qualityOrder returns the run indexes sorted by the headline metric, best
// first (ties keep report order).
func (r *Report) qualityOrder() []int {
	head := r.MetricList()[0]
	idx := make([]int, len(r.Runs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Runs[idx[a]].Metrics[head] > r.Runs[idx[b]].Metrics[head] })
	return idx
}

// plotTitle names the set, the query file and the query count.
func (r *Report) plotTitle(what string) string {
	q := r.Repro.QueriesFile
	if q == "" && len(r.Repro.DatasetFiles) > 1 {
		q = filepath.Base(r.Repro.DatasetFiles[1])
	}
	return fmt.Sprintf("%s on %s — %s, %d queries", what, r.Dataset, orDash(q), r.Repro.Queries)
}

// PlotQuality writes the quality forest plot as SVG.
func (r *Report) PlotQuality(w io.Writer) error { return r.PlotQualityAs(w, "svg") }

// PlotLatency writes the latency forest plot as SVG.
func (r *Report) PlotLatency(w io.Writer) error { return r.PlotLatencyAs(w, "svg") }

// PlotQualityAs writes the quality plot in format (svg, png, pdf, …): per
// metric, each run's mean and bootstrap 95% CI, a dashed line at the
// baseline's mean, the point coloured by the run's verdict against it.
func (r *Report) PlotQualityAs(w io.Writer, format string) error {
	f, err := r.qualityFigure()
	if err != nil {
		return err
	}
	return f.render(w, format)
}

// PlotLatencyAs writes the latency plot in format: per stage (and end to
// end), each run's median with a whisker to its p95.
func (r *Report) PlotLatencyAs(w io.Writer, format string) error {
	f, err := r.latencyFigure()
	if err != nil {
		return err
	}
	return f.render(w, format)
}

func (r *Report) qualityFigure() (*figure, error) {
	order := r.qualityOrder()
	ms := r.MetricList()
	f := &figure{title: r.plotTitle("Quality"), panelW: qualityPanelW, labels: r.rowLabels(order)}
	f.subtitle = fmt.Sprintf("Mean and bootstrap 95%% CI per run, sorted by %s.", metricLabel(ms[0]))
	if r.Baseline != "" {
		f.subtitle += fmt.Sprintf(" Dashed line: the baseline %s. Colour: paired randomisation test against it, Holm-adjusted over the %s, α = %g.",
			r.Baseline, plural(len(r.Runs)-1, "other run"), r.Alpha)
		f.legend = []legendItem{{colWin, "significantly better"}, {colLoss, "significantly worse"}, {colTie, "not significant"}, {colBaseline, "baseline"}}
	}
	for _, m := range ms {
		p, err := r.qualityPanel(m, order)
		if err != nil {
			return nil, err
		}
		f.panels = append(f.panels, p)
	}
	return f, nil
}

// plural writes "1 other run" or "3 other runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func (r *Report) rowLabels(order []int) []string {
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = r.Runs[k].Name
	}
	return out
}

// qualityPanel draws one metric: a point and CI per run, rows in order.
func (r *Report) qualityPanel(metric string, order []int) (*plot.Plot, error) {
	p := newPanel(metricLabel(metric), len(order))
	n := len(order)
	lo, hi := math.Inf(1), math.Inf(-1)
	for row, k := range order {
		run := r.Runs[k]
		v := run.Metrics[metric]
		ci, ok := run.CI95[metric]
		if !ok {
			ci = CI{v, v}
		}
		ci.Lo, ci.Hi = math.Min(ci.Lo, v), math.Max(ci.Hi, v)
		lo, hi = math.Min(lo, ci.Lo), math.Max(hi, ci.Hi)
		y := float64(n - 1 - row)
		if err := addPoint(p, v, y, v-ci.Lo, ci.Hi-v, verdictColor(run.VsBaseline[metric].Verdict)); err != nil {
			return nil, fmt.Errorf("quality plot %s: %w", metric, err)
		}
	}
	if b, err := r.Run(r.Baseline); err == nil {
		bv := b.Metrics[metric]
		line, err := plotter.NewLine(plotter.XYs{{X: bv, Y: -0.5}, {X: bv, Y: float64(n) - 0.5}})
		if err != nil {
			return nil, fmt.Errorf("quality plot baseline: %w", err)
		}
		line.Color, line.Dashes, line.Width = colBaseline, []vg.Length{vg.Points(4), vg.Points(3)}, vg.Points(1)
		p.Add(line)
		lo, hi = math.Min(lo, bv), math.Max(hi, bv)
	}
	pad := math.Max((hi-lo)*0.06, 0.01)
	p.X.Min, p.X.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
	if p.X.Min >= p.X.Max {
		p.X.Min, p.X.Max = math.Max(0, p.X.Min-0.05), p.X.Max+0.05
	}
	return p, nil
}

// latencyStages lists the panels of the latency plot: end to end, then the
// stages in first-seen order.
func (r *Report) latencyStages() []string {
	return append([]string{"end to end"}, stageNames(r.Runs)...)
}

func (r *Report) latencyFigure() (*figure, error) {
	order := r.qualityOrder()
	f := &figure{title: r.plotTitle("Latency"), panelW: latencyPanelW, labels: r.rowLabels(order),
		subtitle: "Per stage and end to end: median (dot) and p95 (whisker) in ms over the queries that did not fail; rows in the quality plot's order. " +
			"A panel spanning more than a decade is in log scale."}
	for _, s := range r.latencyStages() {
		p, err := r.latencyPanel(s, order)
		if err != nil {
			return nil, err
		}
		f.panels = append(f.panels, p)
	}
	return f, nil
}

// latencyOf returns a run's latency in one panel; ok is false when the run
// has no such stage.
func latencyOf(run RunResult, stage string) (Latency, bool) {
	if stage == "end to end" {
		return run.LatencyMS, len(run.Queries) > run.Failed || run.LatencyMS.P50 > 0
	}
	for _, st := range run.Stages {
		if st.Stage == stage {
			return st.LatencyMS, true
		}
	}
	return Latency{}, false
}

// minLatencyMS is the floor of a log-scale latency axis.
const minLatencyMS = 1e-3

func (r *Report) latencyPanel(stage string, order []int) (*plot.Plot, error) {
	p := newPanel(stage+" (ms)", len(order))
	n := len(order)
	lo, hi := math.Inf(1), math.Inf(-1)
	for row, k := range order {
		l, ok := latencyOf(r.Runs[k], stage)
		if !ok || math.IsNaN(l.P50) {
			continue
		}
		p50, p95 := math.Max(l.P50, minLatencyMS), math.Max(l.P95, l.P50)
		p95 = math.Max(p95, minLatencyMS)
		lo, hi = math.Min(lo, p50), math.Max(hi, p95)
		if err := addPoint(p, p50, float64(n-1-row), 0, p95-p50, colTie); err != nil {
			return nil, fmt.Errorf("latency plot %s: %w", stage, err)
		}
	}
	switch {
	case math.IsInf(lo, 1):
		p.X.Min, p.X.Max = 0, 1
	case hi/lo > 10:
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = lo/1.4, hi*1.4
	default:
		p.X.Min, p.X.Max = 0, hi*1.08
	}
	return p, nil
}

// ciPoint is one point with an asymmetric horizontal error bar (an
// XYer and XErrorer of length 1).
type ciPoint struct{ x, y, lo, hi float64 }

func (c ciPoint) Len() int                      { return 1 }
func (c ciPoint) XY(int) (float64, float64)     { return c.x, c.y }
func (c ciPoint) XError(int) (float64, float64) { return c.lo, c.hi }
func (c ciPoint) hasBar() bool                  { return c.lo > 0 || c.hi > 0 }

// addPoint adds one run's point, coloured col, with a horizontal bar from
// x−lo to x+hi when it has width.
func addPoint(p *plot.Plot, x, y, lo, hi float64, col color.Color) error {
	pt := ciPoint{x: x, y: y, lo: lo, hi: hi}
	if pt.hasBar() {
		eb, err := plotter.NewXErrorBars(pt)
		if err != nil {
			return err
		}
		eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1.3), vg.Points(6)
		p.Add(eb)
	}
	sc, err := plotter.NewScatter(pt)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Shape, sc.GlyphStyle.Color, sc.GlyphStyle.Radius = draw.CircleGlyph{}, col, vg.Points(3.2)
	p.Add(sc)
	return nil
}

// rowLines draws a light line across a panel at every row.
type rowLines struct{ rows int }

func (l rowLines) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: colRowLine, Width: vg.Points(0.6)}
	for i := range l.rows {
		y := trY(float64(i))
		c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	}
}

// newPanel starts a panel of rows runs with a title and no y labels.
func newPanel(title string, rows int) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Tick.Label.Font.Size = vg.Points(tickFontSize)
	p.HideY()
	p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil // rows get their own lines
	grid.Vertical.Color, grid.Vertical.Width = colRowLine, vg.Points(0.6)
	p.Add(grid, rowLines{rows})
	return p
}

// labelStyle is the style of the run names.
func labelStyle() draw.TextStyle {
	p := plot.New()
	sty := p.Y.Tick.Label
	sty.Font.Size = vg.Points(10)
	sty.XAlign = draw.XRight
	sty.YAlign = draw.YCenter
	return sty
}

// render lays the figure out on one canvas of format and writes it.
func (f *figure) render(w io.Writer, format string) error {
	lab := labelStyle()
	labelW := vg.Length(0)
	for _, l := range f.labels {
		labelW = max(labelW, lab.Width(l))
	}
	labelW += labelPad
	head := f.headerHeight()
	width := max(minFigureWidth, labelW+vg.Length(len(f.panels))*f.panelW+rightMargin)
	height := head + panelOverhead + vg.Length(max(len(f.labels), minRows))*rowHeight
	cw, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return fmt.Errorf("plot as %s: %w", format, err)
	}
	dc := draw.New(cw)
	f.drawHeader(dc, head)
	var dataMinY, dataMaxY vg.Length
	for i, p := range f.panels {
		x0 := labelW + vg.Length(i)*f.panelW
		sub := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x0, Y: 0}, Max: vg.Point{X: x0 + f.panelW - panelGap, Y: height - head}}}
		p.Draw(sub)
		da := p.DataCanvas(sub)
		dataMinY, dataMaxY = da.Min.Y, da.Max.Y
	}
	f.drawLabels(dc, lab, labelW, dataMinY, dataMaxY)
	if _, err := cw.WriteTo(w); err != nil {
		return fmt.Errorf("write %s plot: %w", format, err)
	}
	return nil
}

// drawLabels writes the run names right-aligned before the first panel,
// each level with its row.
func (f *figure) drawLabels(dc draw.Canvas, lab draw.TextStyle, labelW, minY, maxY vg.Length) {
	n := len(f.labels)
	if n == 0 {
		return
	}
	rowH := (maxY - minY) / vg.Length(n)
	for i, l := range f.labels {
		y := maxY - rowH*(vg.Length(i)+0.5)
		dc.FillText(lab, vg.Point{X: labelW - labelPad/2, Y: y}, l)
	}
}

func titleStyle(size vg.Length) draw.TextStyle {
	p := plot.New()
	sty := p.Title.TextStyle
	sty.Font.Size = size
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YTop
	return sty
}

// headerLines wraps the subtitle to the figure's text width.
func (f *figure) headerLines(width vg.Length) []string {
	sty := titleStyle(vg.Points(10))
	var lines []string
	line := ""
	for _, word := range strings.Fields(f.subtitle) {
		cand := strings.TrimSpace(line + " " + word)
		if line != "" && sty.Width(cand) > width {
			lines = append(lines, line)
			cand = word
		}
		line = cand
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// headerWidth is the text width the header wraps at.
func (f *figure) headerWidth() vg.Length {
	lab := labelStyle()
	labelW := vg.Length(0)
	for _, l := range f.labels {
		labelW = max(labelW, lab.Width(l))
	}
	return max(minFigureWidth, labelW+labelPad+vg.Length(len(f.panels))*f.panelW+rightMargin) - 0.4*vg.Inch
}

func (f *figure) headerHeight() vg.Length {
	h := titleStyle(vg.Points(titleFontSize)).Height("M") + 0.25*vg.Inch
	h += vg.Length(len(f.headerLines(f.headerWidth()))) * titleStyle(vg.Points(10)).Height("M") * 1.25
	if len(f.legend) > 0 {
		h += 0.28 * vg.Inch
	}
	return h
}

// drawHeader writes the title, the wrapped subtitle and the legend.
func (f *figure) drawHeader(dc draw.Canvas, head vg.Length) {
	x := 0.2 * vg.Inch
	y := dc.Max.Y - 0.12*vg.Inch
	ts := titleStyle(vg.Points(titleFontSize))
	dc.FillText(ts, vg.Point{X: x, Y: y}, f.title)
	y -= ts.Height(f.title) + 0.08*vg.Inch
	ss := titleStyle(vg.Points(10))
	for _, l := range f.headerLines(f.headerWidth()) {
		dc.FillText(ss, vg.Point{X: x, Y: y}, l)
		y -= ss.Height("M") * 1.25
	}
	if len(f.legend) == 0 {
		return
	}
	y -= 0.08 * vg.Inch
	ls := titleStyle(vg.Points(10))
	ls.YAlign = draw.YCenter
	for _, it := range f.legend {
		dc.DrawGlyph(draw.GlyphStyle{Color: it.color, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}, vg.Point{X: x + vg.Points(4), Y: y})
		dc.FillText(ls, vg.Point{X: x + vg.Points(11), Y: y}, it.text)
		x += vg.Points(18) + ls.Width(it.text)
	}
}
