package engine

import (
	"maps"

	"github.com/cgraph/cgraph/record"
)

// redactNew removes secrets from a new memory's content, source and
// metadata values (Options.Redactor), in place.
func (s *Engine) redactNew(n *record.NewMemory) {
	n.Content, n.Source, n.Meta = s.redactFields(n.Content, n.Source, n.Meta)
}

// redactFields returns the fields with their secrets replaced; meta is
// copied only when a value changes.
func (s *Engine) redactFields(content, source string, meta map[string]string) (string, string, map[string]string) {
	if s.redactor == nil {
		return content, source, meta
	}
	content, _ = s.redactor.Redact(content)
	source, _ = s.redactor.Redact(source)
	copied := false
	for k, v := range meta {
		r, found := s.redactor.Redact(v)
		if found == nil {
			continue
		}
		if !copied {
			meta, copied = maps.Clone(meta), true
		}
		meta[k] = r
	}
	return content, source, meta
}

// redactChange removes secrets from an update's new content and metadata
// values.
func (s *Engine) redactChange(c record.Change) record.Change {
	if c.Content != nil {
		content, _, _ := s.redactFields(*c.Content, "", nil)
		c.Content = &content
	}
	_, _, c.SetMeta = s.redactFields("", "", c.SetMeta)
	return c
}
