package benchcmd

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
)

func init() { app.Register(newProfilesCmd) }

// profileJSON is one element of `profiles --json`. Weights has every slot
// E1…E13 in slot order (engine.Weights.MarshalJSON).
type profileJSON struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Weights     engine.Weights `json:"weights"`
	Temporal    bool           `json:"temporal"`
	Staged      bool           `json:"staged"`
	E10Boost    float64        `json:"e10_boost"`
	ExtraRecall []string       `json:"extra_recall"`
	Adaptive    bool           `json:"adaptive"`
	Builtin     bool           `json:"builtin"`
}

func toProfileJSON(p engine.Profile, builtin bool) profileJSON {
	j := profileJSON{Name: p.Name, Description: p.Description, Weights: p.Weights, Temporal: p.Temporal,
		Staged: p.Staged, E10Boost: p.E10Boost, ExtraRecall: []string{}, Adaptive: p.Adaptive, Builtin: builtin}
	for _, s := range p.ExtraRecall {
		j.ExtraRecall = append(j.ExtraRecall, s.String())
	}
	return j
}

func newProfilesCmd(a *app.App) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List the weight profiles search can use, with their per-slot weights",
		Long: `List the 17 built-in weight profiles: how much each embedder slot E1–E13
counts when search fuses its spaces (weights sum to 1), and the flags that change
how a profile acts:

  temporal   E2–E4 may weigh; they re-order results after retrieval, never retrieve
  staged     written for the five-stage pipeline; may weigh E12 (rerank) and E13 (recall)
  e10×N      the strength of the E10 intent boost on E1 scores
  +E9        slots that also supply candidates in S1 recall
  adaptive   weights set per query (auto); the row shows its typical weights

--file F validates a custom profile file (TOML or YAML) and shows it, as
"search --profile-file F" would use it. Needs no store.`,
		Example: `  cgraph profiles
  cgraph --json profiles | jq '.[] | select(.name == "causal_reasoning").weights'
  cgraph profiles --file my_profile.toml`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var list []engine.Profile
			builtin := file == ""
			if builtin {
				list = engine.BuiltinProfiles()
			} else {
				p, err := engine.LoadProfileFile(file)
				if err != nil {
					return &app.UsageError{Problem: fmt.Sprintf("--file: %v", err), Fix: "fix the file; `cgraph profiles --help` shows the format"}
				}
				list = []engine.Profile{p}
			}
			if a.JSON {
				out := make([]profileJSON, 0, len(list))
				for _, p := range list {
					out = append(out, toProfileJSON(p, builtin))
				}
				return a.PrintJSON(out)
			}
			return printProfiles(a, list)
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "validate and show a custom profile file (.toml, .yaml, .yml)")
	_ = cmd.MarkFlagFilename("file", "toml", "yaml", "yml") // fails only for an unknown flag
	cmd.AddCommand(newProfilesLearnCmd(a))
	return cmd
}

// printProfiles writes the profiles as a table: one row per profile, one
// column per slot (a dot for weight 0), the flags and the description.
func printProfiles(a *app.App, list []engine.Profile) error {
	width := len("profile")
	for _, p := range list {
		width = max(width, len(p.Name))
	}
	// Right-aligned weight columns; names padded so they read left-aligned.
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 1, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\t", width, "profile")
	for _, s := range engine.Slots() {
		fmt.Fprintf(tw, "%s\t", s)
	}
	fmt.Fprint(tw, " \t\n")
	for _, p := range list {
		fmt.Fprintf(tw, "%-*s\t", width, p.Name)
		for _, s := range engine.Slots() {
			fmt.Fprintf(tw, "%s\t", weightCell(p.Weights.Get(s)))
		}
		fmt.Fprintf(tw, " \t%s\n", profileFlags(p))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	a.Printf("\n")
	dw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	for _, p := range list {
		fmt.Fprintf(dw, "%s\t%s\n", p.Name, p.Description)
	}
	if err := dw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	a.Printf("\nuse one with: cgraph search QUERY --profile NAME (--weight E5=0.6 overrides one slot)\n")
	return nil
}

// weightCell formats a weight for the profiles table: "." for 0, else the
// weight with up to three decimals and no leading zero (".33", ".154").
func weightCell(w float64) string {
	if w == 0 {
		return "."
	}
	s := strconv.FormatFloat(w, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return strings.TrimPrefix(s, "0")
}

// profileFlags is the flags column of the profiles table.
func profileFlags(p engine.Profile) string {
	var fs []string
	if p.Name == engine.DefaultProfile {
		fs = append(fs, "default")
	}
	if p.Adaptive {
		fs = append(fs, "adaptive")
	}
	if p.Temporal {
		fs = append(fs, "temporal")
	}
	if p.Staged {
		fs = append(fs, "staged")
	}
	if p.E10Boost > 0 {
		fs = append(fs, "e10×"+strconv.FormatFloat(p.E10Boost, 'g', -1, 64))
	}
	for _, s := range p.ExtraRecall {
		fs = append(fs, "+"+s.String())
	}
	return strings.Join(fs, " ")
}
