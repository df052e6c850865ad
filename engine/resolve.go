package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/cgraph/cgraph/engine/internal/cellar"
	"github.com/cgraph/cgraph/record"
)

// MinIDPrefix is the fewest hex digits ResolveID takes as an id prefix.
const MinIDPrefix = 8

// errStopScan ends a scan early; it never leaves ResolveID.
var errStopScan = errors.New("stop")

// ResolveID turns a full id or a unique prefix of one (at least MinIDPrefix
// hex digits, dashes optional, as list and search print ids) into the id.
// A prefix no memory has is record.ErrNotFound; one several memories share
// is a *record.ValidationError listing up to five of them. Cost: a full id
// is parsed; a prefix is one seek and a short scan of the memories family.
func (s *Engine) ResolveID(ctx context.Context, text string) (record.ID, error) {
	text = strings.TrimSpace(text)
	if id, err := record.ParseID(text); err == nil {
		return id, nil
	}
	digits := strings.ToLower(strings.ReplaceAll(text, "-", ""))
	if _, err := hex.DecodeString(digits + strings.Repeat("0", len(digits)%2)); err != nil || len(digits) < MinIDPrefix || len(digits) > 32 {
		return record.ID{}, &record.ValidationError{Field: "id", Problem: fmt.Sprintf("%q is neither a memory id nor a prefix of one", text),
			Fix: fmt.Sprintf("give the 36-character id that add or list printed, or its first %d or more hex digits", MinIDPrefix)}
	}
	prefix, _ := hex.DecodeString(digits[:len(digits)/2*2]) // whole bytes; an odd last digit is matched below
	var matches []record.ID
	err := s.eng.Scan(ctx, cellar.FamMemories, prefix, func(k, _ []byte) error {
		if len(k) != 16 || !strings.HasPrefix(hex.EncodeToString(k), digits) {
			return nil
		}
		matches = append(matches, record.ID(k))
		if len(matches) > 5 {
			return errStopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return record.ID{}, fmt.Errorf("resolve id prefix %s: %w", text, err)
	}
	switch len(matches) {
	case 0:
		return record.ID{}, fmt.Errorf("%w: no memory id starts with %s", record.ErrNotFound, text)
	case 1:
		return matches[0], nil
	}
	names := make([]string, 0, 5)
	for _, id := range matches[:min(5, len(matches))] {
		names = append(names, id.String())
	}
	more := ""
	if len(matches) > 5 {
		more = ", …"
	}
	return record.ID{}, &record.ValidationError{Field: "id", Problem: fmt.Sprintf("prefix %s matches several memories: %s%s", text, strings.Join(names, ", "), more),
		Fix: "give more of the id"}
}
