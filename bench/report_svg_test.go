package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svgText parses an SVG document as XML and returns its root element's name
// and all its text, one <text> element per line.
func svgText(t *testing.T, b []byte) (root string, text string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	var sb strings.Builder
	inText := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			if tok.Name.Local == "text" {
				inText++
			}
		case xml.EndElement:
			if tok.Name.Local == "text" {
				inText--
				sb.WriteString("\n")
			}
		case xml.CharData:
			if inText > 0 {
				sb.Write(tok)
			}
		}
	}
	return root, sb.String()
}

// TestPlotsAreReadable renders both plots of a report whose runs include a
// long name and a failed query: each is an SVG that parses as XML, titled
// with the set and the query file, with every run name, metric or stage and
// the baseline written out; PNG renders too.
func TestPlotsAreReadable(t *testing.T) {
	long := "multi_space with a custom learned profile from profiles/learned-2026-05-01-typo-tolerant.toml"
	rep := tinyRun(t, []RunSpec{{Name: "slot", Mode: "e1_only"}, {Name: long, Mode: "reverse"}, {Mode: "fail"}})
	var q, l bytes.Buffer
	if err := rep.PlotQuality(&q); err != nil {
		t.Fatal(err)
	}
	if err := rep.PlotLatency(&l); err != nil {
		t.Fatal(err)
	}
	root, text := svgText(t, q.Bytes())
	if root != "svg" {
		t.Fatalf("quality root element %q", root)
	}
	for _, want := range []string{"Quality on tiny — queries.jsonl, 8 queries", "slot", long, "fail", "nDCG@10", "MRR@10", "Recall@100", "MAP@100",
		"the baseline slot", "significantly better", "significantly worse"} {
		if !strings.Contains(text, want) {
			t.Errorf("quality plot lacks %q; its text:\n%s", want, text)
		}
	}
	// Rows are sorted best first: slot (1.0), fail, then the reversed run.
	if i, j := strings.Index(text, "slot\n"), strings.Index(text, long); i < 0 || j < i {
		t.Errorf("rows not sorted by nDCG@10:\n%s", text)
	}
	root, text = svgText(t, l.Bytes())
	if root != "svg" {
		t.Fatalf("latency root element %q", root)
	}
	for _, want := range []string{"Latency on tiny — queries.jsonl, 8 queries", long, "end to end (ms)", "score (ms)", "sort (ms)", "p95"} {
		if !strings.Contains(text, want) {
			t.Errorf("latency plot lacks %q; its text:\n%s", want, text)
		}
	}
	var png bytes.Buffer
	if err := rep.PlotQualityAs(&png, "png"); err != nil || !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG")) {
		t.Errorf("PNG: %v", err)
	}
}

// TestTypoPlotTitle: a run over another query file of the same set says so
// in its plot titles (the typo plot once carried the clean plot's title).
func TestTypoPlotTitle(t *testing.T) {
	dir := t.TempDir()
	copyTiny(t, dir)
	b, err := os.ReadFile("testdata/tiny/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	typos := filepath.Join(dir, "queries-typos.jsonl")
	if err := os.WriteFile(typos, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(dir, LoadOptions{QueriesFile: typos})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ds, &overlapRetriever{}, RunOptions{Runs: []RunSpec{{Mode: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, plot := range []func(io.Writer) error{rep.PlotQuality, rep.PlotLatency} {
		var w bytes.Buffer
		if err := plot(&w); err != nil {
			t.Fatal(err)
		}
		if _, text := svgText(t, w.Bytes()); !strings.Contains(text, "— queries-typos.jsonl, 8 queries") {
			t.Errorf("title does not name the typo queries:\n%s", text)
		}
	}
}
