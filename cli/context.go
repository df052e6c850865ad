package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/mcpserver"
	"github.com/cgraph/cgraph/models/tokenizer"
)

func init() { register(newContextCmd) }

func newContextCmd(a *App) *cobra.Command {
	var budget, candidates int
	var profile string
	var ff filterFlags
	cmd := &cobra.Command{
		Use:   "context QUERY",
		Short: "Pack the memories that matter for a task into a token budget, as Markdown for a prompt",
		Long: `context searches the store for QUERY and packs the best memories into --budget tokens:
best first, each whole where it fits (the first one that does not fit is cut at a word
boundary), near-duplicates of a packed memory dropped, every item with a citation handle
([1], [2]), its type, date and id. Tokens are counted with the e5-small-v2 tokenizer when
it is installed (else approximately, and the output says so), over exactly the text
printed, so the output never exceeds the budget. --json gives the items, what was
dropped and why, and the Markdown. The same packing is the MCP tool get_context and
POST /v1/context of cgraph serve.`,
		Example: `  cgraph context "fix the flaky store tests" --budget 1500
  cgraph context "why does CI fail" --json | jq -r .markdown`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef(`quote the query: cgraph context "what the task is about"`, "context takes one QUERY, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if handled, err := a.viaServer(); handled { // a cgraph serve on this store has the models loaded
				return err
			}
			filter, err := ff.filter(a.Project, time.Now())
			if err != nil {
				return err
			}
			s, err := a.OpenStore(false)
			if err != nil {
				return err
			}
			defer a.closeStore(s, &err)
			srv := mcpserver.New(s, mcpserver.Options{Version: engine.Version, Tokens: a.tokenCounter()})
			in, err := json.Marshal(map[string]any{"query": args[0], "budget": budget, "profile": profile, "candidates": candidates, "filter": filter})
			if err != nil {
				return err
			}
			out, err := srv.Call(a.Context(), "get_context", in)
			if err != nil {
				if mcpserver.IsBadInput(err) {
					return &UsageError{Problem: err.Error(), Fix: "see `cgraph context --help`"}
				}
				return err
			}
			co, ok := out.(mcpserver.ContextOutput)
			if !ok {
				return fmt.Errorf("context: unexpected answer %T", out)
			}
			if a.JSON {
				return a.PrintJSON(co)
			}
			a.Printf("%s", co.Markdown)
			a.Warnf("%d memories, %d of %d tokens (%s); %d left out", len(co.Items), co.Tokens, co.Budget, co.Counter, len(co.Dropped))
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&budget, "budget", 2000, "the most tokens the context may take (64 to 32000)")
	fl.IntVar(&candidates, "candidates", 30, "search results to pack from, best first (1 to 100)")
	fl.StringVar(&profile, "profile", "semantic_search", "weight profile of the search")
	ff.bind(fl)
	return cmd
}

// tokenCounter counts with the e5-small-v2 tokenizer of the models
// directory (int8 or fp32 build), else approximately.
func (a *App) tokenCounter() contextpack.Counter {
	for _, id := range []string{"e5-small-v2-q", "e5-small-v2"} {
		path := filepath.Join(a.ModelsDir, id, "tokenizer.json")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		t, err := tokenizer.Load(path)
		if err != nil {
			a.Warnf("tokenizer %s: %v: counting tokens approximately", path, err)
			break
		}
		return contextpack.TokenizerCounter{T: t, Label: "e5-small-v2 WordPiece tokenizer"}
	}
	return contextpack.Approx{}
}
