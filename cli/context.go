package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newContextCmd) }

func newContextCmd(a *app.App) *cobra.Command {
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
printed, so the output never exceeds the budget. --json gives the answer MCP and HTTP give:
the Markdown, a citation index (cite, id, type, date; counted in the budget), and what was
left out as a count and a reason. The same packing is the MCP tool get_context and
POST /v1/context of cgraph serve.`,
		Example: `  cgraph context "fix the flaky store tests" --budget 1500
  cgraph context "why does CI fail" --json | jq -r .markdown`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return app.Usagef(`quote the query: cgraph context "what the task is about"`, "context takes one QUERY, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			filter, err := ff.filter(a.Project, time.Now())
			if err != nil {
				return err
			}
			if budget < 1 || candidates < 1 { // 0 would mean the default to ops
				return app.Usagef("give --budget from 64 to 32000 and --candidates from 1 to 100", "--budget %d --candidates %d: each must be positive", budget, candidates)
			}
			co, err := packContext(a, cmd, ops.ContextRequest{Query: args[0], Budget: budget, Profile: profile, Candidates: candidates, Filter: filter})
			if err != nil {
				return err
			}
			if a.JSON {
				return a.PrintJSON(co)
			}
			a.Printf("%s", co.Markdown)
			a.Warnf("%d memories, %d of %d tokens (%s); %d left out", len(co.Cites), co.Tokens, co.Budget, co.Counter, co.Left.Count)
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

// context packs r on the cgraph serve of this store when one answers (POST
// /v1/context, counted with the server's tokenizer), else here.
func packContext(a *app.App, cmd *cobra.Command, r ops.ContextRequest) (co ops.CompactContext, err error) {
	if srv, ok := a.Server(cmd); ok {
		body := map[string]any{"query": r.Query, "budget": r.Budget, "profile": r.Profile, "candidates": r.Candidates, "filter": r.Filter}
		err := srv.Post(a.Context(), "/v1/context", body, &co)
		if !errors.Is(err, app.ErrNoServer) {
			return co, err
		}
	}
	s, err := a.OpenStore(false)
	if err != nil {
		return co, err
	}
	defer a.CloseStore(s, &err)
	r.Tokens, r.Index = a.TokenCounter(), true
	full, err := ops.Context(a.Context(), s, r)
	var ve *record.ValidationError
	if errors.As(err, &ve) {
		return co, &app.UsageError{Problem: "--" + ve.Field + ": " + ve.Problem, Fix: ve.Fix}
	}
	return full.Compact(), err
}
