package capture

import (
	"strconv"
	"strings"
	"time"

	"github.com/cgraph/cgraph/record"
)

// Kind is what a candidate memory is in capture's terms. It is finer than
// record.Type: a fix is stored as a note (record.Type has no "fix") tagged
// "fix" and linked to its error by record.RelFixes.
type Kind string

// The candidate kinds.
const (
	KindError      Kind = "error"
	KindFix        Kind = "fix"
	KindDecision   Kind = "decision"
	KindPreference Kind = "preference"
	KindFact       Kind = "fact"
)

// Kinds lists every candidate kind.
func Kinds() []Kind { return []Kind{KindError, KindFix, KindDecision, KindPreference, KindFact} }

// RecordType is the memory type a kind is stored as.
func (k Kind) RecordType() record.Type {
	switch k {
	case KindError:
		return record.TypeError
	case KindDecision:
		return record.TypeDecision
	case KindPreference:
		return record.TypePreference
	case KindFact:
		return record.TypeFact
	default:
		return record.TypeNote
	}
}

// Candidate is a memory extraction proposes, with its provenance.
type Candidate struct {
	Kind Kind
	// Content is short and self-contained: it reads well without the
	// transcript ("Error: … while running `…`", "Fix: …", "Decision: …").
	Content string
	// Confidence in [0, 1] is how sure the rule that produced it is; faces
	// may keep only candidates above a floor.
	Confidence float64
	Session    string
	// Seq and Time are those of the first turn the candidate came from.
	Seq  uint64
	Time time.Time
	// UUIDs are the transcript lines the candidate was read from.
	UUIDs []string
	// Source is "PATH#UUID" of the first of those lines.
	Source string
	// Files are the files the candidate is about (an error's files, a fix's
	// edited files), for recall when one of them is touched.
	Files []string
	// Rule names the rule that produced it, for explain and tuning.
	Rule string
}

// Key is the candidate's idempotence key: kind, session and first line
// uuid. Extracting the same transcript twice yields the same keys.
func (c Candidate) Key() string {
	u := ""
	if len(c.UUIDs) > 0 {
		u = c.UUIDs[0]
	}
	return string(c.Kind) + "/" + c.Session + "/" + u
}

// NewMemory is the candidate as a memory to store in project: typed
// (Kind.RecordType), tagged "capture" and its kind, with its provenance in
// Meta (capture_kind, capture_key, capture_rule, confidence, line uuids,
// files). Importance is the confidence scaled into [0.3, 0.8], so captured
// memories never outrank what a person stored on purpose by default.
func (c Candidate) NewMemory(project string) record.NewMemory {
	meta := map[string]string{
		"capture_kind": string(c.Kind),
		"capture_key":  c.Key(),
		"capture_rule": c.Rule,
		"confidence":   strconv.FormatFloat(c.Confidence, 'f', 2, 64),
	}
	if len(c.UUIDs) > 0 {
		meta["line_uuids"] = joinCapped(c.UUIDs, record.MaxMetaValueBytes)
	}
	if len(c.Files) > 0 {
		meta["files"] = joinCapped(c.Files, record.MaxMetaValueBytes)
	}
	return record.NewMemory{
		Content:    c.Content,
		Type:       c.Kind.RecordType(),
		Tags:       []string{"capture", string(c.Kind)},
		Source:     c.Source,
		Session:    c.Session,
		CreatedAt:  c.Time,
		Importance: 0.3 + 0.5*clamp01(c.Confidence),
		Project:    project,
		Meta:       meta,
	}
}

// joinCapped joins names with "," up to limit bytes, dropping the names
// that do not fit whole (meta values are capped by record.MaxMetaValueBytes).
func joinCapped(names []string, limit int) string {
	var b strings.Builder
	for _, n := range names {
		if b.Len()+len(n)+1 > limit {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
	}
	return b.String()
}

func clamp01(v float64) float64 { return min(1, max(0, v)) }

// Link is a relation between two candidates of one plan, by index into
// Plan.Memories, read "From <Type> To" (a fix fixes an error).
type Link struct {
	From, To int
	Type     record.RelationType
}

// Plan is what extraction proposes for one session: memories to add and
// links between them. It writes nothing; a face writes it.
type Plan struct {
	Session  string
	Memories []Candidate
	Links    []Link
}
