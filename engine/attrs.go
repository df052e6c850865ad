package engine

import (
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/embedders/codeview"
	"github.com/cgraph/cgraph/record"
)

// attrs is the in-memory table of the record fields searches filter on: a
// bitmap per value of the categorical fields (type, tag, project, session,
// source, metadata pair) and a row per doc for the ordered ones (times,
// importance). It is what lets every index search take the filter as its
// candidate set, so a filter never empties a top-k that matching memories
// could fill. Not safe for concurrent use: indexSet.mu guards it.
type attrs struct {
	byType    map[record.Type]*roaring.Bitmap
	byTag     map[string]*roaring.Bitmap
	byProject map[string]*roaring.Bitmap
	bySession map[string]*roaring.Bitmap
	bySource  map[string]*roaring.Bitmap
	byMeta    map[string]*roaring.Bitmap // "key\x00value"
	rows      []attrRow                  // by doc number
	// superseded marks the targets of supersedes relations (filtered on),
	// contradicted those of contradicts relations (the search badge).
	superseded, contradicted edgeMarks
	// code marks the memories that read as code (codeview.IsCode): the
	// auto profile routes its weights on their share among the top hits.
	// Derived from the content, never stored.
	code *roaring.Bitmap
}

// edgeMarks are the docs that are the target of relations of one type,
// and the sources of each, oldest link first.
type edgeMarks struct {
	docs *roaring.Bitmap
	by   map[record.DocNum][]record.ID
}

func newEdgeMarks() edgeMarks {
	return edgeMarks{docs: roaring.New(), by: map[record.DocNum][]record.ID{}}
}

// set records (on) or removes (!on) the relation "from → doc".
func (e edgeMarks) set(doc record.DocNum, from record.ID, on bool) {
	list := e.by[doc]
	i := slices.Index(list, from)
	switch {
	case on && i < 0:
		list = append(list, from)
	case !on && i >= 0:
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(e.by, doc)
		e.docs.Remove(uint32(doc))
		return
	}
	e.by[doc] = list
	e.docs.Add(uint32(doc))
}

// forget drops every mark of a deleted doc.
func (e edgeMarks) forget(doc record.DocNum) {
	e.docs.Remove(uint32(doc))
	delete(e.by, doc)
}

// of returns the sources of the relations to doc (none: nil).
func (e edgeMarks) of(doc record.DocNum) []record.ID { return slices.Clone(e.by[doc]) }

func (e edgeMarks) bytes() int64 { return int64(e.docs.GetSizeInBytes()) + int64(len(e.by))*40 }

// attrRow is what attrs keeps of one memory, to filter on ordered fields
// and to undo its bitmap entries when the memory changes or goes.
type attrRow struct {
	set              bool
	typ              record.Type
	tags             []string
	project          string
	session, source  string
	meta             map[string]string
	created, updated int64
	validUntil       int64 // record.Memory.ValidUntil, 0: still valid
	importance       float64
	accessed         int64
	accessCount      uint64
}

func newAttrs() *attrs {
	return &attrs{byType: map[record.Type]*roaring.Bitmap{}, byTag: map[string]*roaring.Bitmap{}, byProject: map[string]*roaring.Bitmap{},
		bySession: map[string]*roaring.Bitmap{}, bySource: map[string]*roaring.Bitmap{}, byMeta: map[string]*roaring.Bitmap{},
		superseded: newEdgeMarks(), contradicted: newEdgeMarks(), code: roaring.New()}
}

func metaKey(k, v string) string { return k + "\x00" + v }

func bitmapOf[K comparable](m map[K]*roaring.Bitmap, k K, create bool) *roaring.Bitmap {
	b := m[k]
	if b == nil && create {
		b = roaring.New()
		m[k] = b
	}
	return b
}

func unset[K comparable](m map[K]*roaring.Bitmap, k K, doc record.DocNum) {
	if b := m[k]; b != nil {
		b.Remove(uint32(doc))
		if b.IsEmpty() {
			delete(m, k)
		}
	}
}

// set records m's fields, replacing what was recorded for its doc.
func (a *attrs) set(m record.Memory) {
	doc := m.DocNum
	a.unsetRow(doc)
	for int(doc) >= len(a.rows) {
		a.rows = append(a.rows, attrRow{})
	}
	r := attrRow{set: true, typ: m.Type, tags: m.Tags, project: m.Project, session: m.Session, source: m.Source, meta: m.Meta,
		created: unixNano(m.CreatedAt), updated: unixNano(m.UpdatedAt), validUntil: unixNano(m.ValidUntil), importance: m.Importance}
	a.rows[doc] = r
	bitmapOf(a.byType, r.typ, true).Add(uint32(doc))
	for _, t := range r.tags {
		bitmapOf(a.byTag, t, true).Add(uint32(doc))
	}
	bitmapOf(a.byProject, r.project, true).Add(uint32(doc))
	if r.session != "" {
		bitmapOf(a.bySession, r.session, true).Add(uint32(doc))
	}
	if r.source != "" {
		bitmapOf(a.bySource, r.source, true).Add(uint32(doc))
	}
	for k, v := range r.meta {
		bitmapOf(a.byMeta, metaKey(k, v), true).Add(uint32(doc))
	}
	if codeview.IsCode(m.Content) {
		a.code.Add(uint32(doc))
	}
}

// remove forgets a deleted doc: its fields and its supersede marks (its
// relations went with it).
func (a *attrs) remove(doc record.DocNum) {
	a.unsetRow(doc)
	a.superseded.forget(doc)
	a.contradicted.forget(doc)
}

// unsetRow forgets doc's fields.
func (a *attrs) unsetRow(doc record.DocNum) {
	if int(doc) >= len(a.rows) || !a.rows[doc].set {
		return
	}
	r := a.rows[doc]
	unset(a.byType, r.typ, doc)
	for _, t := range r.tags {
		unset(a.byTag, t, doc)
	}
	unset(a.byProject, r.project, doc)
	unset(a.bySession, r.session, doc)
	unset(a.bySource, r.source, doc)
	for k, v := range r.meta {
		unset(a.byMeta, metaKey(k, v), doc)
	}
	a.code.Remove(uint32(doc))
	a.rows[doc] = attrRow{}
}

// setValidUntil records doc's end of validity (a supersedes link changed
// it in the store).
func (a *attrs) setValidUntil(doc record.DocNum, t time.Time) {
	if int(doc) < len(a.rows) && a.rows[doc].set {
		a.rows[doc].validUntil = unixNano(t)
	}
}

// mark records (on) or removes (!on) the relation "from t doc" where
// the table follows relations of type t (supersedes, contradicts); other
// types are ignored.
func (a *attrs) mark(t record.RelationType, doc record.DocNum, from record.ID, on bool) {
	switch t {
	case record.RelSupersedes:
		a.superseded.set(doc, from, on)
	case record.RelContradicts:
		a.contradicted.set(doc, from, on)
	}
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// allow returns the docs of live that pass f, or nil when f keeps every
// live doc (no restriction: the indexes search as before).
func (a *attrs) allow(f record.Filter, live *roaring.Bitmap) *roaring.Bitmap {
	k := &keptDocs{out: live.Clone()}
	a.keepIndexed(k, f)
	a.keepValid(k, f)
	a.keepRows(k, f)
	if !k.restricted || k.out.GetCardinality() == live.GetCardinality() {
		return nil
	}
	return k.out
}

// keptDocs is the doc set allow narrows, and whether any part of the
// filter restricted it.
type keptDocs struct {
	out        *roaring.Bitmap
	restricted bool
}

// and keeps the docs of b (none when b is nil: no doc has that value).
func (k *keptDocs) and(b *roaring.Bitmap) {
	k.restricted = true
	if b == nil {
		k.out.Clear()
		return
	}
	k.out.And(b)
}

// andAny keeps the docs of any of bs (nil ones hold no doc).
func (k *keptDocs) andAny(bs []*roaring.Bitmap) {
	u := roaring.New()
	for _, b := range bs {
		if b != nil {
			u.Or(b)
		}
	}
	k.and(u)
}

// keepIndexed applies the parts of f the attribute bitmaps answer:
// project, types, tags, session, source and metadata.
func (a *attrs) keepIndexed(k *keptDocs, f record.Filter) {
	if !f.AllProjects {
		k.and(a.byProject[f.Project])
	}
	if len(f.Types) > 0 {
		var bs []*roaring.Bitmap
		for _, t := range f.Types {
			bs = append(bs, a.byType[t])
		}
		k.andAny(bs)
	}
	if len(f.TagsAny) > 0 {
		var bs []*roaring.Bitmap
		for _, t := range f.TagsAny {
			bs = append(bs, a.byTag[t])
		}
		k.andAny(bs)
	}
	for _, t := range f.TagsAll {
		k.and(a.byTag[t])
	}
	if f.Session != "" {
		k.and(a.bySession[f.Session])
	}
	if f.Source != "" {
		k.and(a.bySource[f.Source])
	}
	for key, v := range f.Meta {
		k.and(a.byMeta[metaKey(key, v)])
	}
}

// keepValid applies f.Superseded from the superseded bitmap; with AsOf
// validity at that time is decided row by row (keepRows) instead.
func (a *attrs) keepValid(k *keptDocs, f record.Filter) {
	switch {
	case unixNano(f.AsOf) != 0: // validity at that time, from the rows (keepRows)
	case f.Superseded == record.ExcludeSuperseded:
		if !a.superseded.docs.IsEmpty() {
			k.restricted = true
			k.out.AndNot(a.superseded.docs)
		}
	case f.Superseded == record.OnlySuperseded:
		k.and(a.superseded.docs)
	}
}

// keepRows applies the parts of f read from each kept doc's row: the
// created and updated windows, MinImportance, and with AsOf whether the
// memory existed and was valid (or superseded) at that time. It walks
// the kept docs once, and only when f has such a part.
func (a *attrs) keepRows(k *keptDocs, f record.Filter) {
	asOf := unixNano(f.AsOf)
	ca, cb, ua, ub := unixNano(f.CreatedAfter), unixNano(f.CreatedBefore), unixNano(f.UpdatedAfter), unixNano(f.UpdatedBefore)
	if ca == 0 && cb == 0 && ua == 0 && ub == 0 && !(f.MinImportance > 0) && asOf == 0 {
		return
	}
	k.restricted = true
	drop := roaring.New()
	it := k.out.Iterator()
	for it.HasNext() {
		d := it.Next()
		if int(d) >= len(a.rows) {
			drop.Add(d)
			continue
		}
		r := a.rows[d]
		if (ca != 0 && r.created < ca) || (cb != 0 && r.created >= cb) || (ua != 0 && r.updated < ua) || (ub != 0 && r.updated >= ub) ||
			r.importance < f.MinImportance {
			drop.Add(d)
			continue
		}
		if asOf != 0 {
			ended := r.validUntil != 0 && r.validUntil <= asOf
			if r.created > asOf || (f.Superseded == record.ExcludeSuperseded && ended) || (f.Superseded == record.OnlySuperseded && !ended) {
				drop.Add(d)
			}
		}
	}
	k.out.AndNot(drop)
}

// bytes estimates the table's heap size.
func (a *attrs) bytes() int64 {
	n := int64(len(a.rows)) * 128
	for _, m := range []map[string]*roaring.Bitmap{a.byTag, a.byProject, a.bySession, a.bySource, a.byMeta} {
		for k, b := range m {
			n += int64(len(k)) + int64(b.GetSizeInBytes()) + 48
		}
	}
	for _, b := range a.byType {
		n += int64(b.GetSizeInBytes()) + 48
	}
	return n + a.superseded.bytes() + a.contradicted.bytes() + int64(a.code.GetSizeInBytes())
}
