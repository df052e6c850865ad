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

// ResolveID turns a full id, or a unique prefix or suffix of one (at least
// MinIDPrefix hex digits, dashes optional, as list and search print ids),
// into the id. UUIDv7 ids begin with their creation time, so the ids of one
// session share their first 8–12 digits; their last digits are random, and
// a suffix is what to give. Text that begins no id is tried as a suffix. A
// text no memory has is record.ErrNotFound; one several memories share is a
// *record.ValidationError listing up to five of them. Cost: a full id is
// parsed; a prefix is one seek and a short scan of the memories family; a
// suffix scans every key of it.
func (s *Engine) ResolveID(ctx context.Context, text string) (record.ID, error) {
	text = strings.TrimSpace(text)
	if id, err := record.ParseID(text); err == nil {
		return id, nil
	}
	digits := strings.ToLower(strings.ReplaceAll(text, "-", ""))
	if _, err := hex.DecodeString(digits + strings.Repeat("0", len(digits)%2)); err != nil || len(digits) < MinIDPrefix || len(digits) > 32 {
		return record.ID{}, &record.ValidationError{Field: "id", Problem: fmt.Sprintf("%q is neither a memory id nor a prefix of one", text),
			Fix: fmt.Sprintf("give the 36-character id that add or list printed, or its last (or first) %d or more hex digits", MinIDPrefix)}
	}
	prefix, _ := hex.DecodeString(digits[:len(digits)/2*2]) // whole bytes; an odd last digit is matched below
	matches, err := s.scanIDs(ctx, prefix, func(h string) bool { return strings.HasPrefix(h, digits) })
	if err != nil {
		return record.ID{}, fmt.Errorf("resolve id prefix %s: %w", text, err)
	}
	if len(matches) == 0 {
		if matches, err = s.scanIDs(ctx, nil, func(h string) bool { return strings.HasSuffix(h, digits) }); err != nil {
			return record.ID{}, fmt.Errorf("resolve id suffix %s: %w", text, err)
		}
	}
	switch len(matches) {
	case 0:
		return record.ID{}, fmt.Errorf("%w: no memory id starts or ends with %s", record.ErrNotFound, text)
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
		Fix: fmt.Sprintf("give more of the id, or its last %d hex digits (ids of one session share their first ones)", MinIDPrefix)}
}

// scanIDs returns up to six ids of the memories family under prefix whose
// hex form match accepts (six: enough to tell one from several and name
// five).
func (s *Engine) scanIDs(ctx context.Context, prefix []byte, match func(hex string) bool) ([]record.ID, error) {
	var out []record.ID
	err := s.cellar.Scan(ctx, cellar.FamMemories, prefix, func(k, _ []byte) error {
		if len(k) != 16 || !match(hex.EncodeToString(k)) {
			return nil
		}
		out = append(out, record.ID(k))
		if len(out) > 5 {
			return errStopScan
		}
		return nil
	})
	if errors.Is(err, errStopScan) {
		err = nil
	}
	return out, err
}
