package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newInitCmd) }

func newInitCmd(a *app.App) *cobra.Command {
	var samples bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a store (with --samples: and add the bundled sample memories)",
		Long: `Create the store in --db with all its column families. Running it on an
existing store changes nothing and says so.

--samples adds the bundled sample memories (the ones "cgraph samples" prints)
to a new or empty store; on a store that already holds memories it is refused,
so samples are never mixed into real data twice.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if a.ReadOnly {
				return &app.UsageError{Problem: "--read-only was given but init creates a store", Fix: "drop --read-only"}
			}
			s, created, err := openOrCreate(a)
			if err != nil {
				return err
			}
			defer a.CloseStore(s, &err)
			e := s
			st, err := e.Stats(a.Context())
			if err != nil {
				return err
			}
			out := initResult{DB: e.Dir(), Created: created, Memories: st.Memories, FormatVersion: st.FormatVersion}
			if created {
				a.Printf("created store %s\n", e.Dir())
			} else {
				a.Printf("store %s already exists (%d memories)\n", e.Dir(), st.Memories)
			}
			if samples {
				if st.Memories > 0 {
					return app.Usagef("give --db a new directory for the samples", "store %s already holds %d memories, refusing to add samples to it", e.Dir(), st.Memories)
				}
				res, err := addJSONL(a, s, bytes.NewReader(sampleJSONL), int64(len(sampleJSONL)))
				if err != nil {
					return fmt.Errorf("add samples: %w", err)
				}
				if res.Failed > 0 {
					return fmt.Errorf("bundled sample line %d was refused: %s", res.Errors[0].Line, res.Errors[0].Error)
				}
				out.SamplesAdded = res.Added
				out.Memories += uint64(res.Added)
				a.Printf("added %d sample memories\n", res.Added)
			}
			if a.JSON {
				return a.PrintJSON(out)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&samples, "samples", false, "add the bundled sample memories")
	return cmd
}

// initResult is init's --json output.
type initResult struct {
	DB            string `json:"db"`
	Created       bool   `json:"created"`
	Memories      uint64 `json:"memories"`
	FormatVersion uint32 `json:"format_version"`
	SamplesAdded  int    `json:"samples_added"`
}

// openOrCreate opens the memory store in a.DBDir for writing, creating it
// when there is none; created says which happened. The models are loaded
// once for both attempts.
func openOrCreate(a *app.App) (s *engine.Engine, created bool, err error) {
	reg, closeReg, err := a.LoadRegistry()
	if err != nil {
		return nil, false, err
	}
	s, err = a.OpenStoreWith(reg, closeReg, app.StoreOpen{Write: true})
	if errors.Is(err, record.ErrNoStore) {
		s, err = a.OpenStoreWith(reg, closeReg, app.StoreOpen{Write: true, Create: true})
		created = err == nil
	}
	if err != nil {
		return nil, false, errors.Join(err, app.CloseRegistry(closeReg))
	}
	return s, created, nil
}
