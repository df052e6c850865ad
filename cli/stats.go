package cli

import (
	"sort"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newStatsCmd) }

// statsJSON is stats' --json output.
type statsJSON struct {
	DB            string                `json:"db"`
	Memories      uint64                `json:"memories"`
	NextDocNum    record.DocNum         `json:"next_doc_num"`
	FormatVersion uint32                `json:"format_version"`
	Families      map[string]familyJSON `json:"families"`
}

type familyJSON struct {
	Keys  uint64 `json:"keys"`
	Bytes uint64 `json:"bytes"`
}

func newStatsCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Show the store's size: memories and per-column-family keys and bytes",
		Long: `Show the number of memories, the next doc number, the format version and,
per RocksDB column family, its estimated keys and bytes (RocksDB estimates:
approximate for large families, exact enough to see where space goes).`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			e, err := a.OpenRecords(false)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			st, err := e.Stats(a.Context())
			if err != nil {
				return err
			}
			out := statsJSON{DB: e.Dir(), Memories: st.Memories, NextDocNum: st.NextDocNum, FormatVersion: st.FormatVersion,
				Families: make(map[string]familyJSON, len(st.Families))}
			names := make([]string, 0, len(st.Families))
			for name, f := range st.Families {
				out.Families[name] = familyJSON{Keys: f.Keys, Bytes: f.Bytes}
				names = append(names, name)
			}
			if a.JSON {
				return a.PrintJSON(out)
			}
			sort.Strings(names)
			a.Printf("store:          %s\n", out.DB)
			a.Printf("memories:       %d\n", out.Memories)
			a.Printf("next doc num:   %d\n", out.NextDocNum)
			a.Printf("format version: %d\n\n", out.FormatVersion)
			a.Printf("%-24s %10s %12s\n", "family", "keys", "bytes")
			for _, n := range names {
				f := out.Families[n]
				a.Printf("%-24s %10d %12d\n", n, f.Keys, f.Bytes)
			}
			return nil
		},
	}
}
