package pipeline

import (
	"slices"

	"github.com/cgraph/cgraph/fingerprint"
)

// The fixed probes of the stages. Run and Plan both use these, so the plan
// of a request and the searches it makes cannot drift apart.
var (
	recallProbe      = Probe{Slot: fingerprint.E13}                                         // S1 sparse
	recallFallback   = Probe{Slot: fingerprint.E6}                                          // S1 sparse
	denseRecallProbe = Probe{Slot: fingerprint.E1}                                          // S1 dense
	filterProbe      = Probe{Slot: fingerprint.E1, View: ViewMatryoshka128}                 // S2
	rerankProbe      = Probe{Slot: fingerprint.E12}                                         // S4
	e10BoostProbe    = Probe{Slot: fingerprint.E10, View: ViewForward}                      // S3, E10 boost on E1
	exactNamesProbe  = Probe{Slot: fingerprint.E11, View: ViewEntitySet}                    // S3, E11 exact names
	badgeSlots       = []fingerprint.SlotID{fingerprint.E2, fingerprint.E3, fingerprint.E4} // S5
)

// Plan returns every probe Run may make for req — the query views a caller
// must encode before Run — without duplicates, in a stable order. It is
// pure: the same request gives the same plan, whatever the indexes hold.
// Run never probes outside it.
func Plan(req Request) ([]Probe, error) {
	req, err := req.withDefaults()
	if err != nil {
		return nil, err
	}
	r := &run{req: req}
	var ps []Probe
	add := func(more ...Probe) {
		for _, p := range more {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	fusion := func() {
		for _, s := range r.fusionSlots() {
			add(r.probesFor(s)...)
		}
		if req.Profile.E10Boost > 0 {
			add(e10BoostProbe)
		}
		if r.weight(fingerprint.E11) > 0 {
			add(exactNamesProbe)
		}
	}
	switch req.Mode {
	case ModePipeline:
		add(recallProbe, recallFallback, denseRecallProbe)
		for _, s := range req.Profile.ExtraRecall {
			add(Probe{Slot: s})
		}
		add(filterProbe)
		fusion()
		if req.RerankSkip == "" || r.weight(fingerprint.E12) > 0 {
			add(rerankProbe)
		}
	case ModeMultiSpace:
		fusion()
	default:
		add(r.probesFor(req.Primary)...)
	}
	for _, s := range badgeSlots {
		add(Probe{Slot: s})
	}
	return ps, nil
}
