package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newSearchCmd) }

// defaultSearchMode is the mode when --mode is not given (engine.SearchArgs'
// default, named here for the help): multi_space
// searches every weighted space over the whole store, so a profile's slots
// all get their say. pipeline (the five stages) starts from a keyword or
// SPLADE recall set, which is faster at scale but misses memories that share
// no term with the query; ask for it with --mode pipeline.
const defaultSearchMode = engine.ModeMultiSpace

// maxTopK bounds --top-k: more results than this are not read by a human,
// and a script that wants everything should page through `cgraph list`.
const maxTopK = 1000

// snippetWidth is how many characters of a memory's first line the human
// result line shows.
const snippetWidth = 72

// searchFlags are search's flags as given, before parsing.
type searchFlags struct {
	profile, profileFile string
	weights              []string
	mode, embedder       string
	direction            string
	topK                 int
	recallK, filterK     int
	denseRecallK         int
	fusionK              int
	rerankWeight         float64
	session              string
	seq                  uint64
	explain              bool
	noThresholds         bool
	noCorrect            bool
	feedback             int
	fusion               string
	minRelevance         float64
	now                  string
	filter               filterFlags
	expand               string
}

func newSearchCmd(a *app.App) *cobra.Command {
	var f searchFlags
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the memories with a weight profile over the embedder spaces",
		Long: `Search the store: the query is embedded in every slot the profile weighs, each
space is searched with its own index and query view, and the ranked lists are
fused with weighted reciprocal rank fusion (Σ w/(60+rank)), or with --fusion minmax
(or $CGRAPH_FUSION=minmax, for every search of this process) by each space's min-max
normalised scores (Σ w·(s−floor)/(top−floor) over its top 100).

Profiles: --profile NAME (see "cgraph profiles"; default semantic_search), or
--profile-file F (TOML or YAML); --weight E5=0.6 pins one slot's weight and
re-normalises the others (repeat for several).

Modes (--mode):
  multi_space     every weighted space over the whole store, fused (default)
  pipeline        the five stages: S1 recall (E13, else E6) → S2 E1-Matryoshka-128
                  filter → S3 fusion → S4 E12 rerank → S5 thresholds and badges
  e1_only         one E1 search
  embedder_first  one search in the slot --embedder Ek (implied by --embedder)

--direction causes: the query describes an effect and seeks its causes (E5 searches
the memories' cause vectors with the query's effect view; E8 target → source);
--direction effects the reverse. Without it both views run.

--explain adds, per result, each slot's rank (0-based), raw score, threshold level
and contribution, and the boosts; then every space the profile weighs (including
those unavailable, empty or skipped, with why) and the stages with their candidate
counts and times. Scores in fusion modes are the fusion's (WRRF or minmax, as the
result line says); in single-slot modes the slot's raw score.

The store is opened read-only, so search works beside a running writer. Slots
whose model is not installed are reported as unavailable, never replaced.`,
		Example: `  cgraph search "why did the build fail" --profile causal_reasoning --explain
  cgraph search "rocksdb column family" --mode pipeline --profile pipeline_full
  cgraph search "grocksdb link error" --direction causes --weight E5=0.6
  cgraph search "tokeniser retruns UNK for evry subword" --profile typo_tolerant --top-k 5
  cgraph --json search "uuid ordering" --embedder E6 | jq '.results[].id'`,
		Args:              searchArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			req, err := f.request(cmd, args[0])
			if err != nil {
				return err
			}
			if req.Filter, err = f.filter.filter(a.Project, time.Now()); err != nil {
				return err
			}
			if req.Expand, err = record.ParseRelationTypes(f.expand); err != nil {
				return &app.UsageError{Problem: "--expand: " + err.Error(), Fix: "give relation types from " + record.RelationTypeNames() + ", comma separated"}
			}
			ans, err := a.Search(cmd, req)
			if err != nil {
				return err
			}
			if err := nothingSearched(ans); err != nil {
				return err
			}
			if a.JSON {
				ans.Overrides = append(ans.Overrides, f.weights...)
				return a.PrintJSON(ans)
			}
			return printSearch(a.Stdout, ans, req, searchView{explain: f.explain, overrides: f.weights})
		},
	}
	bindSearchFlags(cmd, &f)
	return cmd
}

// bindSearchFlags defines search's flags on cmd, bound to f, with their
// shell completions.
func bindSearchFlags(cmd *cobra.Command, f *searchFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.profile, "profile", "", "weight profile name (default "+engine.DefaultProfile+"; see cgraph profiles)")
	fl.StringVar(&f.profileFile, "profile-file", "", "custom weight profile file (.toml, .yaml)")
	fl.StringArrayVar(&f.weights, "weight", nil, "override one slot's weight, e.g. E5=0.6 (repeat for several)")
	fl.StringVar(&f.mode, "mode", "", "search mode: "+strings.Join(modeNames(), ", ")+" (default "+defaultSearchMode.String()+")")
	fl.StringVar(&f.embedder, "embedder", "", "primary slot for embedder_first, e.g. E6 (implies --mode embedder_first)")
	fl.StringVar(&f.direction, "direction", "", "E5/E8 direction: causes (query is an effect) or effects (query is a cause); default both")
	fl.IntVar(&f.topK, "top-k", engine.DefaultTopK, "number of results")
	fl.IntVar(&f.recallK, "recall-k", engine.DefaultRecallK, "pipeline S1 sparse recall candidates per source (E13, E6)")
	fl.IntVar(&f.denseRecallK, "dense-recall-k", engine.DefaultDenseRecall, "pipeline S1 dense recall candidates (E1)")
	fl.IntVar(&f.filterK, "filter-k", engine.DefaultFilterK, "pipeline S2 filter candidates")
	fl.Float64Var(&f.rerankWeight, "rerank-weight", 0, "E12's weight in the pipeline's S4 MaxSim rerank where the profile gives E12 none, in (0, 1]; 0: 0.15 with a ColBERT model, no rerank with the e5 token-state fallback (it measured no gain)")
	fl.IntVar(&f.fusionK, "fusion-k", engine.DefaultFusionK, "S3 fusion output, and per-slot k in multi_space")
	fl.StringVar(&f.session, "session", "", "anchor E4 sequence scores in this session (with --seq)")
	fl.Uint64Var(&f.seq, "seq", 0, "anchor E4 at this position of --session")
	fl.StringVar(&f.now, "now", "", "anchor E2 recency and E3 periodicity at this RFC 3339 time (default now)")
	fl.BoolVar(&f.explain, "explain", false, "show per-slot scores, the spaces searched and the stage trace")
	fl.BoolVar(&f.noThresholds, "no-thresholds", false, "keep results below every slot's low threshold")
	fl.Float64Var(&f.minRelevance, "min-relevance", 0, fmt.Sprintf("drop results whose calibrated relevance is below this probability (%g is the engine's floor); none left answers \"nothing relevant\"", engine.RelevanceFloor))
	fl.IntVar(&f.feedback, "feedback", 0, fmt.Sprintf("pseudo-relevance feedback: the top N fused results move the E1/E5 queries towards them and add their best E6 terms, then fusion runs again (pipeline and multi_space modes; 0 off, at most %d, 3 typical; --explain shows the documents and terms)", engine.MaxFeedback))
	fl.StringVar(&f.fusion, "fusion", "", "how the pipeline and multi_space modes combine the spaces: rrf (reciprocal ranks) or minmax (min-max normalised scores); default $CGRAPH_FUSION, else "+engine.DefaultFusion.String())
	fl.BoolVar(&f.noCorrect, "no-correct", false, "search the words as typed: no correction of words that neither the store's text nor the English word list contains")
	f.filter.bind(fl)
	fl.StringVar(&f.expand, "expand", "", "also list the memories these relation types link to the results, comma separated (e.g. fixes,causes)")
	comp := func(name string, values []cobra.Completion) {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	}
	comp("profile", profileCompletions())
	comp("mode", modeCompletions())
	comp("embedder", slotCompletions(engine.LeadingSlots()))
	comp("direction", []cobra.Completion{
		cobra.CompletionWithDesc("causes", "the query is an effect: find its causes"),
		cobra.CompletionWithDesc("effects", "the query is a cause: find its effects"),
		cobra.CompletionWithDesc("any", "both views (default)"),
	})
	_ = cmd.RegisterFlagCompletionFunc("weight", completeWeight)            // fails only for an unknown flag
	_ = cmd.MarkFlagFilename("profile-file", "toml", "yaml", "yml")         // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("session", cobra.NoFileCompletions)  // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("now", cobra.NoFileCompletions)      // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("seq", cobra.NoFileCompletions)      // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("top-k", cobra.NoFileCompletions)    // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("recall-k", cobra.NoFileCompletions) // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("filter-k", cobra.NoFileCompletions) // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("fusion-k", cobra.NoFileCompletions) // fails only for an unknown flag
}

// searchArgs wants exactly one non-blank QUERY.
func searchArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return app.Usagef(`give the query: cgraph search "why did the build fail"`, "search needs a QUERY")
	case len(args) > 1:
		return app.Usagef(`quote the query: cgraph search "several words"`, "search takes one QUERY argument, got %d", len(args))
	case strings.TrimSpace(args[0]) == "":
		return app.Usagef(`give some words to search for: cgraph search "why did the build fail"`, "the query is empty")
	}
	return nil
}

// searchFlagNames are search's flags as engine.SearchArgs' messages name
// them.
var searchFlagNames = engine.SearchArgNames{Profile: "--profile", ProfileFile: "--profile-file", Weights: "--weight", Mode: "--mode", Embedder: "--embedder", Direction: "--direction"}

// request parses the flags into a search request. Every bad value is a
// *app.UsageError or a *record.ValidationError that lists the valid values;
// nothing is opened before.
func (f searchFlags) request(cmd *cobra.Command, query string) (engine.SearchRequest, error) {
	req := engine.SearchRequest{Query: query, Session: f.session, Seq: f.seq, NoThresholds: f.noThresholds, NoCorrect: f.noCorrect}
	args := engine.SearchArgs{Profile: f.profile, ProfileFile: f.profileFile, Weights: f.weights, Mode: f.mode, Embedder: f.embedder, Direction: f.direction, Names: searchFlagNames}
	var err error
	if req.Profile, err = args.ParseProfile(); err != nil {
		return req, err
	}
	if err := args.ParseShape(&req); err != nil {
		return req, err
	}
	if f.topK < 1 || f.topK > maxTopK {
		return req, app.Usagef(fmt.Sprintf("give a number from 1 to %d", maxTopK), "--top-k %d is out of range", f.topK)
	}
	req.TopK = f.topK
	if f.minRelevance < 0 || f.minRelevance > 1 {
		return req, app.Usagef(fmt.Sprintf("give a probability from 0 to 1, e.g. %g", engine.RelevanceFloor), "--min-relevance %g is out of range", f.minRelevance)
	}
	req.MinRelevance = f.minRelevance
	if f.feedback < 0 || f.feedback > engine.MaxFeedback {
		return req, app.Usagef(fmt.Sprintf("give 0 (off) or 1 to %d; 3 is typical", engine.MaxFeedback), "--feedback %d is out of range", f.feedback)
	}
	req.Feedback = f.feedback
	fusion, err := engine.ParseFusion(f.fusion)
	if err != nil {
		return req, app.Usagef("give rrf or minmax", "--fusion: %v", err)
	}
	req.Fusion = fusion
	for _, k := range []struct {
		name string
		v    int
		dst  *int
	}{{"recall-k", f.recallK, &req.RecallK}, {"dense-recall-k", f.denseRecallK, &req.DenseRecallK}, {"filter-k", f.filterK, &req.FilterK}, {"fusion-k", f.fusionK, &req.FusionK}} {
		if k.v < 1 {
			return req, app.Usagef("give a positive number", "--%s %d is not positive", k.name, k.v)
		}
		*k.dst = k.v
	}
	if !(f.rerankWeight >= 0 && f.rerankWeight <= 1) {
		return req, app.Usagef("give a weight in (0, 1], or 0 for the default", "--rerank-weight %g is out of range", f.rerankWeight)
	}
	req.RerankWeight = f.rerankWeight
	if cmd.Flags().Changed("seq") && f.session == "" {
		return req, app.Usagef("add --session S: a position means nothing without its session", "--seq needs --session")
	}
	if f.now != "" {
		if req.Now, err = time.Parse(time.RFC3339Nano, f.now); err != nil {
			return req, app.Usagef("give an RFC 3339 time such as 2026-01-02T15:04:05Z", "--now %q is not an RFC 3339 time", f.now)
		}
	}
	return req, nil
}

// nothingSearched fails a search that found nothing because no space could
// be searched at all (e1_only without the E1 model, embedder_first of an
// unavailable slot): an empty list would read as "no match". It names each
// space's reason.
func nothingSearched(res ops.SearchAnswer) error {
	if len(res.Results) > 0 || len(res.Spaces) == 0 {
		return nil
	}
	var why []string
	for _, sp := range res.Spaces {
		switch sp.Status {
		case engine.SpaceOK, engine.SpaceEmpty:
			return nil
		case engine.SpaceSkipped:
			continue
		}
		w := sp.Name + " " + sp.Status
		if sp.Note != "" {
			w += " (" + sp.Note + ")"
		}
		why = append(why, w)
	}
	return &app.ExitCodeError{Code: ExitError, Msg: fmt.Sprintf("nothing could be searched: %s: see `cgraph embedders`, install the model (`cgraph models pull ID`) or choose another --mode or --embedder",
		strings.Join(why, "; "))}
}

func slotList(ss []engine.SlotID) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}

func modeNames() []string {
	var out []string
	for _, m := range []engine.Mode{engine.ModeMultiSpace, engine.ModePipeline, engine.ModeE1Only, engine.ModeEmbedderFirst} {
		out = append(out, m.String())
	}
	return out
}

func modeCompletions() []cobra.Completion {
	desc := map[engine.Mode]string{
		engine.ModeMultiSpace:    "every weighted space over the whole store, fused (default)",
		engine.ModePipeline:      "five stages: recall, Matryoshka filter, fusion, rerank, validate",
		engine.ModeE1Only:        "one E1 search",
		engine.ModeEmbedderFirst: "one search in the --embedder slot",
	}
	var out []cobra.Completion
	for _, m := range []engine.Mode{engine.ModeMultiSpace, engine.ModePipeline, engine.ModeE1Only, engine.ModeEmbedderFirst} {
		out = append(out, cobra.CompletionWithDesc(m.String(), desc[m]))
	}
	return out
}

func profileCompletions() []cobra.Completion {
	var out []cobra.Completion
	for _, p := range engine.BuiltinProfiles() {
		out = append(out, cobra.CompletionWithDesc(p.Name, p.Description))
	}
	return out
}

func slotCompletions(ss []engine.SlotID) []cobra.Completion {
	var out []cobra.Completion
	for _, s := range ss {
		out = append(out, cobra.CompletionWithDesc(s.String(), s.Info().Name+": "+s.Info().Role))
	}
	return out
}

// completeWeight completes the slot part of --weight Ek=w with "Ek=".
func completeWeight(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range engine.Slots() {
		out = append(out, cobra.CompletionWithDesc(s.String()+"=", s.Info().Name))
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
