package cli

import (
	"bytes"
	_ "embed" // for sampleJSONL
	"encoding/json"
	"fmt"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/spf13/cobra"
)

// sampleJSONL is the bundled sample memories, one add --jsonl line each:
// decisions with reasons, errors and fixes, code in Go, Python and
// TypeScript, conversation turns of two sessions, facts and preferences.
//
//go:embed samples/samples.jsonl
var sampleJSONL []byte

func init() { app.Register(newSamplesCmd) }

func newSamplesCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "samples",
		Short: "Print the bundled sample memories as JSONL (for add --jsonl)",
		Long: `Print the sample memories that "cgraph init --samples" adds, one JSON object
per line, ready for "cgraph add --jsonl -". With --json they are printed as
one JSON array.`,
		Example: `  cgraph samples | cgraph add --jsonl -`,
		Args:    app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !a.JSON {
				_, err := a.Stdout.Write(sampleJSONL)
				return err
			}
			var all []json.RawMessage
			for i, line := range bytes.Split(bytes.TrimSpace(sampleJSONL), []byte("\n")) {
				if !json.Valid(line) {
					return fmt.Errorf("bundled sample line %d is not valid JSON: rebuild cgraph from a clean checkout", i+1)
				}
				all = append(all, json.RawMessage(line))
			}
			return a.PrintJSON(all)
		},
	}
}
