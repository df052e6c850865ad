// Command e12graph writes an e5-small-v2 ONNX file with E12's projection in
// its graph: one more output, neural.E12Projection's name, holding
// (last_hidden_state − mean)·PCAᵀ per token (convert.AddProjection). Beside
// the file's own pooled output (scripts/pooled), it lets a GPU run hand E1
// its vector and E12 its 128-d tokens without copying the 384-d token
// states to the host or projecting them there (issue 33). Every other
// output is bit for bit the input file's; the same input gives the same
// bytes. scripts/fp16/cuda.sh runs it on the packed fp16 e5 file.
//
//	go run ./scripts/e12graph SRC DST
package main

import (
	"fmt"
	"os"

	"github.com/cgraph/cgraph/embedders/neural"
	"github.com/cgraph/cgraph/models/convert"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: e12graph SRC DST")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "e12graph:", err)
		os.Exit(1)
	}
}

func run(src, dst string) error {
	name, p, err := neural.E12Projection()
	if err != nil {
		return err
	}
	model, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	out, err := convert.AddProjection(model, "last_hidden_state", name, p)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	fmt.Printf("e12graph: %s + %s (%d → %d dims) → %s\n", src, name, p.In, p.Out, dst)
	return nil
}
