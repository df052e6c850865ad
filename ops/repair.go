package ops

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// RepairReport is what `cgraph check --repair` did to a store: the store's
// files (CURRENT, lost logs; from engine.Repair), then its fingerprints,
// records, postings, links and derived values (RepairContents). Its JSON
// form is check's --json "repair"; every list is [] rather than null.
type RepairReport struct {
	Changed  bool     `json:"changed"`
	Manifest string   `json:"manifest"`
	Tried    []string `json:"tried"`
	// LostLogs are the write-ahead logs the store needed and lost, whose
	// loss the repair accepted (one line each); empty when none.
	LostLogs []string `json:"lost_logs"`
	// Fingerprints is what was done to a fingerprints family with a
	// damaged block: rewritten without its table files, and the memories
	// whose fingerprint did not read dropped, with their content.
	Fingerprints engine.FingerprintRepair `json:"fingerprints"`
	// Records is what was rebuilt from the stored records: counters, the
	// docnums, created_index and sequence families, orphan keys.
	Records engine.RecordRepair `json:"records"`
	// Postings is what was done to the posting families (orphans dropped,
	// statistics reset); empty when they agreed with the records.
	Postings []engine.PostingRepair `json:"postings"`
	// Links is what was done to history and relations (entries of missing
	// memories dropped, missing mirror keys written back).
	Links engine.LinkRepair `json:"links"`
	// Derived is what was rewritten in the per-doc derived families from
	// the fingerprints, and the memories whose E12 matrix was dropped.
	Derived engine.DerivedRepair `json:"derived"`
}

// RepairReportOf starts a report from what engine.Repair did to the
// store's files.
func RepairReportOf(rep engine.RepairReport) *RepairReport {
	r := &RepairReport{Changed: !rep.Healthy, Manifest: rep.Manifest, Tried: rep.Tried, LostLogs: rep.LostLogs, Postings: []engine.PostingRepair{}}
	if r.Tried == nil {
		r.Tried = []string{}
	}
	if r.LostLogs == nil {
		r.LostLogs = []string{}
	}
	return r
}

// ContentRepairer is what RepairContents needs of a store opened for
// writing; *engine.Engine satisfies it.
type ContentRepairer interface {
	RepairFingerprints(ctx context.Context) (engine.FingerprintRepair, error)
	RepairRecords(ctx context.Context) (engine.RecordRepair, error)
	RepairPostings(ctx context.Context) ([]engine.PostingRepair, error)
	RepairLinks(ctx context.Context) (engine.LinkRepair, error)
	RepairDerived(ctx context.Context) (engine.DerivedRepair, error)
}

// RepairContents runs the engine's repairs of a store's contents in the
// order each needs the one before (fingerprints, the records' counters
// and indexes, postings, links, derived values) and records what each did
// in r. It must be given a store opened for writing (the writer lock); it
// neither opens nor closes it. The first failure stops it, wrapped with
// "repair".
func RepairContents(ctx context.Context, e ContentRepairer, r *RepairReport) (err error) {
	if r.Fingerprints, err = e.RepairFingerprints(ctx); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	if r.Fingerprints.Dropped == nil {
		r.Fingerprints.Dropped = []engine.DroppedMemory{}
	}
	if r.Records, err = e.RepairRecords(ctx); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	rep, err := e.RepairPostings(ctx)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	r.Postings = append(r.Postings, rep...)
	links, err := e.RepairLinks(ctx)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	r.Links = links
	if r.Derived, err = e.RepairDerived(ctx); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	if r.Derived.E12Dropped == nil {
		r.Derived.E12Dropped = []record.ID{}
	}
	return nil
}
