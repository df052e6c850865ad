package engine

import (
	"fmt"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// findDuplicate returns a stored memory of project whose content is the
// same as content (record.SameContent): the oldest of the copies the
// store's content_hash family holds for it (FORMAT.md), seen through b, so
// that memories added earlier in the same batch count. The lookup is exact
// and cannot miss a copy, however many other memories share its words.
// Cost: one prefix seek and one record read.
// REQUIRES: s.writeMu held.
func (s *Engine) findDuplicate(b *cellar.Batch, project, content string) (record.Memory, bool, error) {
	ids, err := b.SameContent(project, content)
	if err != nil {
		return record.Memory{}, false, fmt.Errorf("look for a duplicate: %w", err)
	}
	want := record.NormalizeContent(content)
	for _, id := range ids {
		m, err := b.Memory(id)
		if err != nil {
			return record.Memory{}, false, fmt.Errorf("look for a duplicate: %w", err)
		}
		if m.Project == project && record.NormalizeContent(m.Content) == want { // a hash collision is not a copy
			return m, true, nil
		}
	}
	return record.Memory{}, false, nil
}
