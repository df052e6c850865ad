package pipeline

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/record"
)

// The auto profile sets the fusion weights per query (docs/PROFILES.md
// "auto"). Its weight for slot s is
//
//	w_s(q) = base_s · exp(Σ_j θ_s,j · z_j(q, s))
//
// where z are the standardised features of the query text (QueryFeatures)
// and of what slot s returned (ListEvidence). A version 2 model routes its
// base weights between a prose vector and a code vector on c, the share of
// the lists' top hits that read as code (CodeShare):
//
//	base_s = prose_s^(1−c) · code_s^c
//
// so a store of code and a store of notes each get the weights fitted for
// their kind, and a mixed result list a blend. Where a version 2 model
// gives θ_code, the coefficients blend the same way, linearly:
// θ = (1−c)·θ + c·θ_code. Before fusing, a gate:
// when a slot's list is confident beyond its learned threshold, its ranking
// is returned alone. The parameters are fitted offline
// (bench/autofit_experiment_test.go) and embedded here; computing the weights
// is pure code over the query text and the ranked lists: no I/O.

// Query feature names, in AutoModel.Features order (the first
// NumQueryFeatures), followed by the list evidence names.
const (
	FeatLength     = "length"      // log(1 + words)
	FeatIdentifier = "identifiers" // share of words that look like identifiers
	FeatQuestion   = "question"    // 1 if the query asks (question word first or '?')
	FeatCausal     = "causal_cues" // causal cue words, capped at 3, / 3
	FeatCodePunct  = "code_punct"  // share of characters that are code punctuation
	FeatTop        = "top_score"   // the list's best raw score
	FeatGap        = "gap"         // (s1 − s2) / (s1 − s10)
	FeatEntropy    = "entropy"     // normalised entropy of the top 10's scores
	FeatAgreement  = "agreement"   // share of the top 10 in the other lists' top 10
	FeatConfidence = "confidence"  // (s1 − mean) / sd over the top 50: the gate's signal
)

// NumQueryFeatures is the number of features computed from the query text.
const NumQueryFeatures = 5

// FeatureNames lists every feature in vector order: query features, then the
// list evidence of the slot being weighed.
var FeatureNames = []string{FeatLength, FeatIdentifier, FeatQuestion, FeatCausal, FeatCodePunct,
	FeatTop, FeatGap, FeatEntropy, FeatAgreement}

// QueryFeatures returns the query-text features in FeatureNames order (the
// first NumQueryFeatures). It never fails; an empty query has all zeros.
func QueryFeatures(q string) []float64 {
	words := strings.Fields(q)
	out := make([]float64, NumQueryFeatures)
	if len(words) == 0 {
		return out
	}
	out[0] = math.Log1p(float64(len(words)))
	ids, cues := 0, 0
	for i, w := range words {
		if looksLikeIdentifier(w) {
			ids++
		}
		lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
		if causalCues[lw] {
			cues++
		}
		if i == 0 && questionWords[lw] {
			out[2] = 1
		}
	}
	if strings.Contains(q, "?") {
		out[2] = 1
	}
	out[1] = float64(ids) / float64(len(words))
	out[3] = float64(min(cues, 3)) / 3
	chars, punct := 0, 0
	for _, r := range q {
		if unicode.IsSpace(r) {
			continue
		}
		chars++
		if strings.ContainsRune(codePunct, r) {
			punct++
		}
	}
	if chars > 0 {
		out[4] = float64(punct) / float64(chars)
	}
	return out
}

// codePunct are the characters that mark code in a query; '.' and ',' are
// left out: prose ends sentences with them.
const codePunct = "()[]{}<>=;:_*&|/\\`#$@!%^~+\"'"

var questionWords = setOf("what", "why", "how", "when", "where", "which", "who", "whom", "whose",
	"does", "do", "did", "is", "are", "can", "could", "should", "would", "will")

var causalCues = setOf("because", "cause", "causes", "caused", "causing", "due", "therefore", "thus",
	"hence", "so", "consequently", "leads", "lead", "led", "result", "results", "resulted", "resulting",
	"effect", "effects", "why", "since", "if", "then", "triggers", "triggered", "prevents", "prevent",
	"fails", "failed", "breaks", "broke", "makes", "made", "after")

func setOf(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// looksLikeIdentifier reports a word written as code: snake_case, camelCase
// or MixedCase inside a word, a dotted or called name (fs.FileInfo, f()), or
// letters mixed with digits (utf8, E11).
func looksLikeIdentifier(w string) bool {
	w = strings.TrimRight(w, ".,;:!?\"'")
	if strings.ContainsAny(w, "_()") || strings.Contains(strings.Trim(w, "."), ".") {
		return strings.IndexFunc(w, unicode.IsLetter) >= 0
	}
	letters, digits, innerUpper := 0, 0, false
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
			if i > 0 && unicode.IsUpper(r) {
				innerUpper = true
			}
		}
	}
	return letters > 0 && (innerUpper || digits > 0)
}

// ListEvidence returns, for each list in order, the evidence features of that
// list in FeatureNames order after the query features (top score, gap,
// entropy, agreement), and its confidence (the gate's signal) as a separate
// slice. Lists must be sorted best first (WRRF's input order).
func ListEvidence(lists []RankedList) (ev [][]float64, conf []float64) {
	const k = 10
	tops := make([]map[record.DocNum]bool, len(lists))
	for i, l := range lists {
		tops[i] = make(map[record.DocNum]bool, k)
		for _, h := range l.Hits[:min(k, len(l.Hits))] {
			tops[i][h.Doc] = true
		}
	}
	ev = make([][]float64, len(lists))
	conf = make([]float64, len(lists))
	for i, l := range lists {
		hs := l.Hits
		e := make([]float64, 4)
		if len(hs) > 0 {
			e[0] = hs[0].Score
		}
		n := min(k, len(hs))
		if n >= 2 {
			if span := hs[0].Score - hs[n-1].Score; span > 0 {
				e[1] = (hs[0].Score - hs[1].Score) / span
			}
			e[2] = topEntropy(hs[:n])
		} else {
			e[2] = 1
		}
		if others := len(lists) - 1; others > 0 && len(tops[i]) > 0 {
			hit := 0
			for j := range lists {
				if j == i {
					continue
				}
				for d := range tops[i] {
					if tops[j][d] {
						hit++
					}
				}
			}
			e[3] = float64(hit) / float64(others*len(tops[i]))
		}
		ev[i] = e
		conf[i] = confidence(hs)
	}
	return ev, conf
}

// topEntropy is the entropy of p_i ∝ s_i − s_min + ε over hs, divided by
// log(len(hs)): 1 for a flat list, near 0 when one score dominates. It is
// scale-free, so BM25, cosine and Jaccard lists compare.
func topEntropy(hs []Hit) float64 {
	lo, hi := hs[len(hs)-1].Score, hs[0].Score
	eps := (hi-lo)*0.05 + 1e-12
	var sum float64
	for _, h := range hs {
		sum += h.Score - lo + eps
	}
	var ent float64
	for _, h := range hs {
		p := (h.Score - lo + eps) / sum
		ent -= p * math.Log(p)
	}
	return ent / math.Log(float64(len(hs)))
}

// confidence is how far a list's best score stands out of its top 50 in
// standard deviations: (s1 − mean) / sd; 0 for fewer than 5 hits or a flat
// list.
func confidence(hs []Hit) float64 {
	n := min(len(hs), 50)
	if n < 5 {
		return 0
	}
	var sum, sq float64
	for _, h := range hs[:n] {
		sum += h.Score
	}
	mean := sum / float64(n)
	for _, h := range hs[:n] {
		sq += (h.Score - mean) * (h.Score - mean)
	}
	sd := math.Sqrt(sq / float64(n))
	if sd == 0 {
		return 0
	}
	return (hs[0].Score - mean) / sd
}

// AutoModel is the learned per-query weighting. Load it with LoadAutoModel;
// the built-in one is DefaultAutoModel. It is immutable after loading and
// safe for concurrent use.
type AutoModel struct {
	Version  int    `json:"version"`
	Method   string `json:"method"`
	FittedOn []struct {
		Set     string `json:"set"`
		Queries int    `json:"queries"`
	} `json:"fitted_on"`
	Date     string   `json:"date"`
	Features []string `json:"features"`
	// Version 1 weighs with Base alone; version 2 routes between Base (prose)
	// and BaseCode on the share of code among the top hits.
	// Slots holds the parameters of each slot the model weighs.
	Slots map[string]AutoSlot `json:"slots"`
	// HeldOut records the leave-one-set-out figures the fit was judged by
	// (documentation; not used to weigh).
	HeldOut map[string]float64 `json:"held_out,omitempty"`

	slots []fingerprint.SlotID // parsed Slots keys, slot order
}

// AutoSlot is one slot's parameters: the base weight (for prose results;
// BaseCode, in a version 2 model, for results that are code), the coefficients of the
// standardised features (Features order; ThetaCode, in a version 2 model
// that has it, for results that are code, else Theta for both), the
// features' means and standard deviations on the training sets, and the
// gate: a confidence at or above Gate returns this slot's ranking alone (0:
// never).
type AutoSlot struct {
	Base      float64   `json:"base"`
	BaseCode  float64   `json:"base_code,omitempty"`
	Theta     []float64 `json:"theta"`
	ThetaCode []float64 `json:"theta_code,omitempty"`
	Mean      []float64 `json:"mean"`
	SD        []float64 `json:"sd"`
	Gate      float64   `json:"gate,omitempty"`
}

//go:embed auto_model.json
var autoModelJSON []byte

// AutoModelSHA256 is the checksum of the embedded auto_model.json. A test
// pins it, so that refitting the model is a deliberate change that also
// updates docs/PROFILES.md.
func AutoModelSHA256() string {
	s := sha256.Sum256(autoModelJSON)
	return hex.EncodeToString(s[:])
}

// DefaultAutoModel is the embedded model the auto profile uses. Loading it
// is checked by a test; a broken embed panics at start-up rather than
// weighing queries wrongly.
var DefaultAutoModel = mustLoadAutoModel(autoModelJSON)

func mustLoadAutoModel(b []byte) *AutoModel {
	m, err := LoadAutoModel(b)
	if err != nil {
		panic(fmt.Sprintf("pipeline: embedded auto_model.json: %v", err))
	}
	return m
}

// LoadAutoModel parses and checks a model file: known version, the feature
// list this code computes, one finite parameter per feature for each
// fusable slot, positive standard deviations, provenance present.
func LoadAutoModel(b []byte) (*AutoModel, error) {
	var m AutoModel
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("auto model: %w", err)
	}
	if m.Version != 1 && m.Version != 2 {
		return nil, fmt.Errorf("auto model: version %d, this build reads versions 1 and 2", m.Version)
	}
	if !slices.Equal(m.Features, FeatureNames) {
		return nil, fmt.Errorf("auto model: features %v, this build computes %v: refit the model", m.Features, FeatureNames)
	}
	if len(m.FittedOn) == 0 || m.Date == "" || m.Method == "" {
		return nil, fmt.Errorf("auto model: provenance missing (fitted_on, date, method)")
	}
	if len(m.Slots) == 0 {
		return nil, fmt.Errorf("auto model: no slots")
	}
	for name, p := range m.Slots {
		s, err := fingerprint.ParseSlot(name)
		if err != nil {
			return nil, fmt.Errorf("auto model: %w", err)
		}
		if !s.Fused() {
			return nil, fmt.Errorf("auto model: %s does not fuse (temporal, E12 and E13 never do)", s)
		}
		n := len(FeatureNames)
		if len(p.Theta) != n || len(p.Mean) != n || len(p.SD) != n {
			return nil, fmt.Errorf("auto model: %s has %d/%d/%d theta/mean/sd values, want %d each", s, len(p.Theta), len(p.Mean), len(p.SD), n)
		}
		if p.ThetaCode != nil && (m.Version != 2 || len(p.ThetaCode) != n) {
			return nil, fmt.Errorf("auto model: %s has %d theta_code values in a version %d model, want %d in a version 2 model (it routes on the code share) or none", s, len(p.ThetaCode), m.Version, n)
		}
		vals := append([]float64{p.Base, p.BaseCode, p.Gate}, p.Theta...)
		vals = append(vals, p.ThetaCode...)
		vals = append(vals, p.Mean...)
		for _, v := range append(vals, p.SD...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("auto model: %s has a non-finite parameter", s)
			}
		}
		for _, sd := range p.SD {
			if sd <= 0 {
				return nil, fmt.Errorf("auto model: %s has a standard deviation %g ≤ 0", s, sd)
			}
		}
		if p.Base <= 0 || p.Gate < 0 {
			return nil, fmt.Errorf("auto model: %s has base %g (want > 0) or gate %g (want ≥ 0)", s, p.Base, p.Gate)
		}
		if m.Version == 1 && p.BaseCode != 0 {
			return nil, fmt.Errorf("auto model: %s has base_code in a version 1 model (version 2 routes on it)", s)
		}
		if m.Version == 2 && p.BaseCode <= 0 {
			return nil, fmt.Errorf("auto model: %s has base_code %g in a version 2 model, want > 0", s, p.BaseCode)
		}
		m.slots = append(m.slots, s)
	}
	slices.Sort(m.slots)
	return &m, nil
}

// SlotIDs returns the slots the model weighs, in slot order. The caller must
// not modify the slice.
func (m *AutoModel) SlotIDs() []fingerprint.SlotID { return m.slots }

// AutoDecision is what the auto profile chose for one query: shown by
// --explain and in the JSON result.
type AutoDecision struct {
	// Weights are the per-query weights, summing to 1, in slot order.
	Weights []SlotWeight `json:"weights"`
	// CodeShare is the share of the lists' top hits that read as code:
	// how far a version 2 model moved from its prose weights toward its
	// code weights (0 for a version 1 model).
	CodeShare float64 `json:"code_share"`
	// Gated names the slot whose ranking was returned alone ("" when fused).
	Gated      string  `json:"gated,omitempty"`
	Confidence float64 `json:"confidence,omitempty"` // the gated slot's confidence
	// Reasons are the features that moved the weights most, largest first.
	Reasons []string `json:"reasons"`
}

// SlotWeight is one slot's per-query weight and its base weight.
type SlotWeight struct {
	Slot   string  `json:"slot"`
	Weight float64 `json:"weight"`
	Base   float64 `json:"base"`
}

// Weigh sets each list's Weight for query q and returns what it chose. A
// list whose slot the model does not know keeps weight 0. When a list is
// gated, every other list gets weight 0, so WRRF returns its ranking. lists
// is modified in place; it must be sorted best first. isCode says
// which memories read as code (nil: none); only a version 2 model
// reads it.
func (m *AutoModel) Weigh(q string, lists []RankedList, isCode func(record.DocNum) bool) AutoDecision {
	qf := QueryFeatures(q)
	ev, conf := ListEvidence(lists)
	var share float64 // of code among the top hits
	if m.Version == 2 {
		share = CodeShare(lists, isCode)
	}
	type push struct {
		slot, feat string
		v          float64
	}
	var pushes []push
	dec := AutoDecision{CodeShare: share}
	bestGate, gated := 0.0, -1
	var sum, baseSum float64
	for i := range lists {
		p, ok := m.Slots[lists[i].Slot.String()]
		if !ok {
			lists[i].Weight = 0
			continue
		}
		x := append(slices.Clone(qf), ev[i]...)
		lin := 0.0
		for j := range p.Theta {
			v := p.theta(j, share) * (x[j] - p.Mean[j]) / p.SD[j]
			lin += v
			if v != 0 {
				pushes = append(pushes, push{lists[i].Slot.String(), m.Features[j], v})
			}
		}
		base := p.routed(share)
		lists[i].Weight = base * math.Exp(max(-4, min(4, lin)))
		sum += lists[i].Weight
		baseSum += base
		if p.Gate > 0 && conf[i] >= p.Gate && conf[i]/p.Gate > bestGate {
			bestGate, gated = conf[i]/p.Gate, i
		}
	}
	if gated >= 0 {
		dec.Gated, dec.Confidence = lists[gated].Slot.String(), conf[gated]
		for i := range lists {
			if i != gated {
				lists[i].Weight = 0
			}
		}
		sum = lists[gated].Weight
	}
	for i, l := range lists {
		p, ok := m.Slots[l.Slot.String()]
		if !ok || sum <= 0 {
			continue
		}
		lists[i].Weight /= sum // sum to 1, so fused scores read as any profile's
		dec.Weights = append(dec.Weights, SlotWeight{Slot: l.Slot.String(), Weight: lists[i].Weight, Base: p.routed(share) / baseSum})
	}
	slices.SortFunc(pushes, func(a, b push) int { return -cmpAbs(a.v, b.v) })
	for _, p := range pushes[:min(3, len(pushes))] {
		dec.Reasons = append(dec.Reasons, fmt.Sprintf("%s %s ×%.2f", p.feat, p.slot, math.Exp(p.v)))
	}
	if m.Version == 2 {
		dec.Reasons = append([]string{fmt.Sprintf("%.0f%% of top hits are code: base weights %.0f%% code, %.0f%% prose", 100*share, 100*share, 100*(1-share))}, dec.Reasons...)
	}
	if dec.Gated != "" {
		dec.Reasons = append([]string{fmt.Sprintf("%s confident (%.1f sd ≥ gate %.1f): its ranking alone", dec.Gated, dec.Confidence, m.Slots[dec.Gated].Gate)}, dec.Reasons...)
	}
	return dec
}

// theta is coefficient j for a code share c: Theta for prose (c 0),
// ThetaCode for code (c 1), linear between; Theta where there is no
// ThetaCode.
func (p AutoSlot) theta(j int, c float64) float64 {
	if p.ThetaCode == nil || c <= 0 {
		return p.Theta[j]
	}
	return (1-c)*p.Theta[j] + c*p.ThetaCode[j]
}

// routed is the slot's base weight for a code share c: Base for prose (c
// 0), BaseCode for code (c 1), geometric between; Base in a version 1 model.
func (p AutoSlot) routed(c float64) float64 {
	if p.BaseCode == 0 || c <= 0 {
		return p.Base
	}
	if c >= 1 {
		return p.BaseCode
	}
	return math.Exp((1-c)*math.Log(p.Base) + c*math.Log(p.BaseCode))
}

// codeShareK is how deep CodeShare looks into each list.
const codeShareK = 10

// CodeShare is the share of the distinct documents in the top codeShareK
// of the lists that read as code (isCode, codeview.IsCode in the engine;
// nil counts none): 1
// when every slot's best hits are code, 0 when none are. It reads the
// results, not the query: a query in words over a code store is still a
// code search.
func CodeShare(lists []RankedList, isCode func(record.DocNum) bool) float64 {
	if isCode == nil {
		return 0
	}
	seen := map[record.DocNum]bool{}
	code := 0
	for _, l := range lists {
		for _, h := range l.Hits[:min(codeShareK, len(l.Hits))] {
			if seen[h.Doc] {
				continue
			}
			seen[h.Doc] = true
			if isCode(h.Doc) {
				code++
			}
		}
	}
	if len(seen) == 0 {
		return 0
	}
	return float64(code) / float64(len(seen))
}

func cmpAbs(a, b float64) int {
	a, b = math.Abs(a), math.Abs(b)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String is the one-line form the fusion trace shows.
func (d AutoDecision) String() string {
	var b strings.Builder
	b.WriteString("auto weights")
	for _, w := range d.Weights {
		fmt.Fprintf(&b, " %s %.2f", w.Slot, w.Weight)
	}
	if len(d.Reasons) > 0 {
		b.WriteString(" (" + strings.Join(d.Reasons, ", ") + ")")
	}
	return b.String()
}
