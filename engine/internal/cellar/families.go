package cellar

import (
	"time"

	"github.com/cgraph/cgraph/record"
)

// The column families of format version 1, in this build's table order.
// Names are on-disk format (FORMAT.md): never rename one without a migration.
const (
	famDefault family = iota
	famMemories
	famFingerprints
	famDocnums
	famCreated
	famSequence
	famE1Matryoshka128
	famE1Semantic
	famE5Cause
	famE5Effect
	famE7Code
	famE8Source
	famE8Target
	famE9HDC
	famE10Intent
	famE10Context
	famE11Entity
	famE6SparseInverted
	famE13SpladeInverted
	famE12LateInteraction
	famTopicProfiles
	famSynergyMatrix
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
}

// familyInfo describes one column family.
type familyInfo struct {
	name string
	// keys returns the keys this family holds for one memory, so that Delete
	// removes them in the memory's batch. It is nil for families with no
	// per-memory keys (default, topic_profiles, synergy_matrix) and for
	// families whose entries are shared between memories (posting lists):
	// those must be cleaned by the MemoryHook that writes them.
	keys func(r memoryRef) [][]byte
}

func byID(r memoryRef) [][]byte  { return [][]byte{r.id[:]} }
func byDoc(r memoryRef) [][]byte { return [][]byte{docKey(r.doc)} }

// families is the family table; index it with a family constant.
var families = [numFamilies]familyInfo{
	famDefault:      {name: "default"},
	famMemories:     {name: "memories", keys: byID},
	famFingerprints: {name: "fingerprints", keys: byID},
	famDocnums: {name: "docnums", keys: func(r memoryRef) [][]byte {
		return [][]byte{docnumIDKey(r.id), docnumDocKey(r.doc)}
	}},
	famCreated: {name: "created_index", keys: func(r memoryRef) [][]byte {
		return [][]byte{createdKey(r.createdAt, r.id)}
	}},
	famSequence: {name: "sequence", keys: func(r memoryRef) [][]byte {
		if r.session == "" {
			return nil
		}
		return [][]byte{sequenceKey(r.session, r.seq)}
	}},
	famE1Matryoshka128:    {name: "e1_matryoshka_128", keys: byDoc},
	famE1Semantic:         {name: "e1_semantic", keys: byDoc},
	famE5Cause:            {name: "e5_cause", keys: byDoc},
	famE5Effect:           {name: "e5_effect", keys: byDoc},
	famE7Code:             {name: "e7_code", keys: byDoc},
	famE8Source:           {name: "e8_source", keys: byDoc},
	famE8Target:           {name: "e8_target", keys: byDoc},
	famE9HDC:              {name: "e9_hdc", keys: byDoc},
	famE10Intent:          {name: "e10_intent", keys: byDoc},
	famE10Context:         {name: "e10_context", keys: byDoc},
	famE11Entity:          {name: "e11_entity", keys: byDoc},
	famE6SparseInverted:   {name: "e6_sparse_inverted"},
	famE13SpladeInverted:  {name: "e13_splade_inverted"},
	famE12LateInteraction: {name: "e12_late_interaction", keys: byDoc},
	famTopicProfiles:      {name: "topic_profiles"},
	famSynergyMatrix:      {name: "synergy_matrix"},
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
func familyByName(name string) (family, bool) {
	for i, f := range families {
		if f.name == name {
			return family(i), true
		}
	}
	return 0, false
}

// FamilyNames lists the column families of this format version, in a fixed
// order; callers use it to name families in stats and diagnostics.
func FamilyNames() []string { return familyNames() }
