package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

func TestResolveID(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	ctx := context.Background()
	var ids []record.ID
	for _, c := range texts[:4] {
		m, err := s.Add(ctx, record.NewMemory{Content: c})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	full := ids[2].String()
	hexid := strings.ReplaceAll(full, "-", "")
	// The shortest prefix of ids[2] that no other id shares (UUIDv7s made in
	// the same millisecond share their first 12 digits).
	n := MinIDPrefix
	for ; n <= 32; n++ {
		shared := false
		for _, o := range ids {
			if o != ids[2] && strings.HasPrefix(strings.ReplaceAll(o.String(), "-", ""), hexid[:n]) {
				shared = true
			}
		}
		if !shared {
			break
		}
	}
	dashed := full // the same n digits as printed, dashes included
	for i, digits := 0, 0; i < len(full); i++ {
		if full[i] != '-' {
			digits++
		}
		if digits == n {
			dashed = full[:i+1]
			break
		}
	}
	for _, in := range []string{full, strings.ToUpper(full), hexid, hexid[:n], dashed} {
		if got, err := s.ResolveID(ctx, in); err != nil || got != ids[2] {
			t.Errorf("ResolveID(%q) = %v, %v; want %v", in, got, err, ids[2])
		}
	}
	// A prefix the first two ids share (at least the timestamp's first 8 digits here) is ambiguous and lists them.
	common := 0
	a, b := strings.ReplaceAll(ids[0].String(), "-", ""), strings.ReplaceAll(ids[1].String(), "-", "")
	for common < 32 && a[common] == b[common] {
		common++
	}
	if common >= MinIDPrefix {
		_, err := s.ResolveID(ctx, a[:MinIDPrefix])
		var ve *record.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "matches several memories") || !strings.Contains(err.Error(), ids[0].String()) {
			t.Errorf("ambiguous prefix: %v", err)
		}
	}
	// The ids of one session share their first digits; their last 8 name
	// each one (UUIDv7's random tail).
	for i, id := range ids {
		h := strings.ReplaceAll(id.String(), "-", "")
		if got, err := s.ResolveID(ctx, h[32-MinIDPrefix:]); err != nil || got != id {
			t.Errorf("suffix of id %d: %v, %v; want %v", i, got, err, id)
		}
		if got, err := s.ResolveID(ctx, id.String()[36-12:]); err != nil || got != id {
			t.Errorf("last group of id %d: %v, %v; want %v", i, got, err, id)
		}
	}
	if _, err := s.ResolveID(ctx, "ffffffffff"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("absent prefix: %v", err)
	}
	for _, bad := range []string{"0191e0a", "not-an-id", "0191e0a2-zz", strings.Repeat("a", 33)} {
		var ve *record.ValidationError
		if _, err := s.ResolveID(ctx, bad); !errors.As(err, &ve) {
			t.Errorf("ResolveID(%q): %v, want a ValidationError", bad, err)
		}
	}
}
