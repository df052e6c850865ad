package modelscmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() { app.Register(newEmbeddersCmd) }

func newEmbeddersCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:   "embedders",
		Short: "Show the 13 embedder slots: model, dims, index and whether each is ready",
		Long: `Show every embedder slot E1–E13: the model (or algorithm) that fills it, its
dimensions and representation, the index search uses, how many memories of
the store it holds, and its status:

  ready            the slot is computed on add and searchable
  fallback: WHY    it works through a documented fallback (e.g. E12 from E1's
                   token states), named everywhere it shows
  unavailable: WHY no model is installed; search reports the slot as unavailable
                   and applies the pipeline's fallback (cgraph models pull ID)

The slots come from the models in --models-dir, and "device" says where each
model runs. With --device cuda every model's session is opened and runs one
text first: the command fails (exit 1) naming what is missing — the CUDA
build of ONNX Runtime (make setup-cuda), a CUDA library, the driver — instead
of listing slots that would fail on first use. With a store at --db (opened
read-only) each slot also shows its index, document count and RAM, and the
producer recorded in the store, marked when it differs from the installed one
(then "cgraph reembed --slot Ek" recomputes it). Without a store the index is
"-" and docs 0.`,
		Args: app.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			rows, note, err := embedderRows(a)
			if err != nil {
				return err
			}
			if note != "" {
				a.Warnf("%s", note)
			}
			if a.JSON {
				return a.PrintJSON(rows)
			}
			return printEmbedders(a, rows)
		},
	}
}

// embedderRows reports the 13 slots from the store at a.DBDir, or from the
// registry alone when there is no store (note says so).
func embedderRows(a *app.App) (rows []ops.EmbedderRow, note string, err error) {
	reg, closeReg, err := a.LoadRegistryOpen(a.Device == string(runtime.DeviceCUDA))
	if err != nil {
		return nil, "", err
	}
	// Open despite producer mismatches: showing them is this command's job.
	s, err := a.OpenStoreWith(reg, closeReg, app.StoreOpen{Reembed: true})
	if errors.Is(err, record.ErrNoStore) {
		return ops.RegistryRows(reg.Statuses()), fmt.Sprintf("no store at %s: showing the installed embedders only (index -, docs 0)", a.DBDir),
			app.CloseRegistry(closeReg)
	}
	if err != nil {
		return nil, "", errors.Join(err, app.CloseRegistry(closeReg))
	}
	defer a.CloseStore(s, &err)
	rows = ops.StoreRows(s.Slots())
	pending, err := s.PendingBySlot(a.Context())
	if err != nil {
		return nil, "", err
	}
	for i := range rows {
		rows[i].Pending = pending[i]
	}
	return rows, "", nil
}

// printEmbedders writes the slots as a table (slot, name, status, model,
// dims, docs, index), then each slot's representation, then why each slot
// that is not ready is not (status "fallback: …" or "unavailable: …").
func printEmbedders(a *app.App, rows []ops.EmbedderRow) error {
	tw := tabwriter.NewWriter(a.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "slot\tname\tstatus\tmodel\tdims\tdocs\tindex\tdevice\n")
	for _, r := range rows {
		model, dims, device := r.Model, strconv.Itoa(r.Dims), r.Device
		if model == "" {
			model = "-"
		}
		if device == "" {
			device = "-"
		}
		if i := strings.Index(device, " (fallback"); i >= 0 {
			device = device[:i] + " (fallback)" // the reason is listed below
		}
		if r.Dims == 0 {
			dims = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Slot, r.Name, r.Status, model, dims, r.Docs, r.Index, device)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	a.Printf("\nrepresentations:\n")
	for _, r := range rows {
		if r.Representation != "" {
			a.Printf("  %-4s %s\n", r.Slot, r.Representation)
		}
	}
	var why []string
	for _, r := range rows {
		if r.Status != "ready" {
			why = append(why, fmt.Sprintf("  %-4s %s: %s", r.Slot, r.Status, strings.TrimPrefix(r.Reason, r.Status+": ")))
		}
		if strings.Contains(r.Device, "(fallback") {
			why = append(why, fmt.Sprintf("  %-4s runs on %s", r.Slot, r.Device))
		}
		if r.StoredDiffers && !strings.Contains(r.Reason, "cgraph reembed") {
			stored := r.Stored
			if stored == "" {
				stored = "no value of this slot"
			}
			why = append(why, fmt.Sprintf("  %-4s the store was built with %s: run `cgraph reembed --slot %s`", r.Slot, stored, r.Slot))
		}
	}
	if len(why) > 0 {
		a.Printf("\nnot ready:\n%s\n", strings.Join(why, "\n"))
	}
	var pend []string
	for _, r := range rows {
		if r.Pending > 0 {
			pend = append(pend, fmt.Sprintf("%s %d", r.Slot, r.Pending))
		}
	}
	if len(pend) > 0 {
		a.Printf("\npending (deferred writes; `cgraph fill` or a running cgraph serve completes them): %s\n", strings.Join(pend, ", "))
	}
	return nil
}
