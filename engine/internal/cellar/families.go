package cellar

import (
	"fmt"
	"time"

	"github.com/cgraph/cgraph/record"
)

// The column families of format version 3, in this build's table order
// (history and relations are new in version 2, content_hash in version 3).
// Names are on-disk format (FORMAT.md): never rename one without a migration.
const (
	FamDefault Family = iota
	FamMemories
	FamFingerprints
	FamDocnums
	FamCreated
	FamSequence
	FamE1Matryoshka128
	FamE1Semantic
	FamE5Cause
	FamE5Effect
	FamE7Code
	FamE8Source
	FamE8Target
	FamE9HDC
	FamE10Intent
	FamE10Context
	FamE11Entity
	FamE6SparseInverted
	FamE13SpladeInverted
	FamE12LateInteraction
	FamTopicProfiles
	FamSynergyMatrix
	FamHistory
	FamRelations
	FamPending
	FamContent
	numFamilies
)

// memoryRef is what locates every key a memory owns: its id, dense number,
// session position and creation time.
type memoryRef struct {
	id        record.ID
	doc       record.DocNum
	session   string
	seq       uint64
	createdAt time.Time
	content   [32]byte // contentHash of its project and content
}

// refOf is what locates every key m owns.
func refOf(m *record.Memory) memoryRef {
	return memoryRef{id: m.ID, doc: m.DocNum, session: m.Session, seq: m.Sequence, createdAt: m.CreatedAt,
		content: contentHash(m.Project, m.Content)}
}

// familyInfo describes one column family.
type familyInfo struct {
	name string
	// keys returns the keys this family holds for one memory, so that Delete
	// removes them in the memory's batch. It is nil for families with no
	// per-memory keys (default, topic_profiles, synergy_matrix) and for
	// families whose entries are shared between memories (posting lists):
	// those are updated by the writer of the batch (Batch.Put, Batch.Del).
	keys func(r memoryRef) [][]byte
}

func byID(r memoryRef) [][]byte  { return [][]byte{r.id[:]} }
func byDoc(r memoryRef) [][]byte { return [][]byte{docKey(r.doc)} }

// families is the family table; index it with a family constant.
var families = [numFamilies]familyInfo{
	FamDefault:      {name: "default"},
	FamMemories:     {name: "memories", keys: byID},
	FamFingerprints: {name: "fingerprints", keys: byID},
	FamDocnums: {name: "docnums", keys: func(r memoryRef) [][]byte {
		return [][]byte{docnumIDKey(r.id), docnumDocKey(r.doc)}
	}},
	FamCreated: {name: "created_index", keys: func(r memoryRef) [][]byte {
		return [][]byte{createdKey(r.createdAt, r.id)}
	}},
	FamSequence: {name: "sequence", keys: func(r memoryRef) [][]byte {
		if r.session == "" {
			return nil
		}
		return [][]byte{sequenceKey(r.session, r.seq)}
	}},
	FamE1Matryoshka128:    {name: "e1_matryoshka_128", keys: byDoc},
	FamE1Semantic:         {name: "e1_semantic", keys: byDoc},
	FamE5Cause:            {name: "e5_cause", keys: byDoc},
	FamE5Effect:           {name: "e5_effect", keys: byDoc},
	FamE7Code:             {name: "e7_code", keys: byDoc},
	FamE8Source:           {name: "e8_source", keys: byDoc},
	FamE8Target:           {name: "e8_target", keys: byDoc},
	FamE9HDC:              {name: "e9_hdc", keys: byDoc},
	FamE10Intent:          {name: "e10_intent", keys: byDoc},
	FamE10Context:         {name: "e10_context", keys: byDoc},
	FamE11Entity:          {name: "e11_entity", keys: byDoc},
	FamE6SparseInverted:   {name: "e6_sparse_inverted"},
	FamE13SpladeInverted:  {name: "e13_splade_inverted"},
	FamE12LateInteraction: {name: "e12_late_interaction", keys: byDoc},
	FamTopicProfiles:      {name: "topic_profiles"},
	FamSynergyMatrix:      {name: "synergy_matrix"},
	// history and relations hold a variable number of keys per memory
	// (by prefix): Batch.Delete removes them by scanning.
	FamHistory:   {name: "history"},
	FamRelations: {name: "relations"},
	// pending holds, per doc, the slots a deferred write left to the
	// background filler (engine Options.DeferSlots).
	FamPending: {name: "pending", keys: byDoc},
	// content_hash (v3) finds a memory's exact copies in its project: the
	// hash of the project and the content with white space collapsed, then
	// the memory's id.
	FamContent: {name: "content_hash", keys: func(r memoryRef) [][]byte {
		return [][]byte{contentKey(r.content, r.id)}
	}},
}

// familyNames returns the names of all families in table order.
func familyNames() []string {
	names := make([]string, numFamilies)
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// familyByName finds a family of the table by its on-disk name.
func familyByName(name string) (Family, bool) {
	for i, f := range families {
		if f.name == name {
			return Family(i), true
		}
	}
	return 0, false
}

// FamilyNames lists the column families of this format version, in a fixed
// order; callers use it to name families in stats and diagnostics.
func FamilyNames() []string { return familyNames() }

// known refuses a Family outside this build's table.
func (f Family) known() error {
	if f < 0 || f >= numFamilies {
		return fmt.Errorf("family %d is not part of store format %d", f, FormatVersion)
	}
	return nil
}

// String is the family's on-disk name, for messages.
func (f Family) String() string {
	if f.known() != nil {
		return fmt.Sprintf("family(%d)", int(f))
	}
	return families[f].name
}
