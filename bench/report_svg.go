package bench

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotMetrics are the metrics drawn in the quality plot, each with its CI.
var plotMetrics = []string{"ndcg@10", "mrr@10", "recall@100"}

// ciBars places error bars at data x positions.
type ciBars struct {
	x, y, lo, hi []float64
}

func (c ciBars) Len() int                        { return len(c.x) }
func (c ciBars) XY(i int) (float64, float64)     { return c.x[i], c.y[i] }
func (c ciBars) YError(i int) (float64, float64) { return c.y[i] - c.lo[i], c.hi[i] - c.y[i] }

func runNames(runs []RunResult) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.Name
	}
	return out
}

func newBarPlot(title, ylabel string, runs []RunResult) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.NominalX(runNames(runs)...)
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Legend.Top = true
	p.X.Min, p.X.Max = -0.6, float64(len(runs))-0.4
	return p
}

func plotWidth(runs int) vg.Length { return vg.Length(math.Max(6, 1.0+float64(runs)*0.9)) * vg.Inch }

// PlotQuality writes an SVG bar chart of nDCG@10, MRR@10 and Recall@100 per
// run, each bar with its bootstrap 95% confidence interval.
func (r *Report) PlotQuality(w io.Writer) error {
	p, err := r.qualityPlot()
	if err != nil {
		return err
	}
	return savePlot(p, w, len(r.Runs), "svg")
}

func (r *Report) qualityPlot() (*plot.Plot, error) {
	p := newBarPlot(fmt.Sprintf("Quality on %s: mean and bootstrap 95%% CI", r.Dataset), "score", r.Runs)
	p.Y.Min, p.Y.Max = 0, 1.3 // headroom for the legend
	// Bars sit at data x = run index + offset, so the error bars (placed in
	// data units) line up with them; the bar width approximates a quarter of
	// one run's horizontal space (plot width minus about an inch of margins).
	unit := (plotWidth(len(r.Runs)) - vg.Inch) / vg.Length(len(r.Runs))
	barW := unit * 0.25
	for mi, name := range plotMetrics {
		vals := make(plotter.Values, len(r.Runs))
		cb := ciBars{}
		off := (float64(mi) - float64(len(plotMetrics)-1)/2) * 0.27
		for i, run := range r.Runs {
			v, _ := run.Metrics.Get(name)
			ci, ok := run.CI95[name]
			if !ok {
				ci = CI{v, v}
			}
			vals[i] = v
			cb.x = append(cb.x, float64(i)+off)
			cb.y = append(cb.y, v)
			cb.lo = append(cb.lo, math.Min(ci.Lo, v))
			cb.hi = append(cb.hi, math.Max(ci.Hi, v))
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return nil, fmt.Errorf("quality plot: %w", err)
		}
		bars.XMin = off
		bars.Color = plotutil.Color(mi)
		bars.LineStyle.Width = 0
		eb, err := plotter.NewYErrorBars(cb)
		if err != nil {
			return nil, fmt.Errorf("quality plot error bars: %w", err)
		}
		eb.CapWidth = 6
		p.Add(bars, eb)
		p.Legend.Add(name, bars)
	}
	return p, nil
}

// PlotLatency writes an SVG chart of the median latency per stage, stacked per
// run, with the end-to-end p95 as a marker above each bar.
func (r *Report) PlotLatency(w io.Writer) error {
	p, err := r.latencyPlot()
	if err != nil {
		return err
	}
	return savePlot(p, w, len(r.Runs), "svg")
}

func (r *Report) latencyPlot() (*plot.Plot, error) {
	p := newBarPlot(fmt.Sprintf("Latency on %s: stage medians (stacked), end-to-end p95 (dot)", r.Dataset), "ms", r.Runs)
	stages := stageNames(r.Runs)
	if len(stages) == 0 {
		stages = []string{"end to end (p50)"}
	}
	var below *plotter.BarChart
	for si, s := range stages {
		vals := make(plotter.Values, len(r.Runs))
		for i, run := range r.Runs {
			if len(run.Stages) == 0 && si == 0 {
				vals[i] = run.LatencyMS.P50
			}
			for _, st := range run.Stages {
				if st.Stage == s {
					vals[i] = st.LatencyMS.P50
				}
			}
		}
		bars, err := plotter.NewBarChart(vals, 24)
		if err != nil {
			return nil, fmt.Errorf("latency plot: %w", err)
		}
		bars.Color = plotutil.Color(si)
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(s, bars)
	}
	pts := make(plotter.XYs, len(r.Runs))
	for i, run := range r.Runs {
		pts[i] = plotter.XY{X: float64(i), Y: run.LatencyMS.P95}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, fmt.Errorf("latency plot p95: %w", err)
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(sc)
	p.Legend.Add("p95 end to end", sc)
	top := 0.0
	for _, run := range r.Runs {
		sum := 0.0
		for _, st := range run.Stages {
			sum += st.LatencyMS.P50
		}
		top = math.Max(top, math.Max(sum, run.LatencyMS.P95))
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.35, 1e-3) // headroom for the legend
	return p, nil
}

func savePlot(p *plot.Plot, w io.Writer, runs int, format string) error {
	wt, err := p.WriterTo(plotWidth(runs), 4.5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("render SVG: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("write SVG: %w", err)
	}
	return nil
}
