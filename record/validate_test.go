package record

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseCreatedAt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
		err  string
	}{
		{"", time.Time{}, ""},
		{"2026-01-02T15:04:05Z", time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC), ""},
		{"1970-01-01T00:00:00.000000001Z", time.Unix(0, 1).UTC(), ""},
		{"0001-01-01T00:00:00Z", time.Time{}, "outside the storable range"},
		{"1970-01-01T00:00:00Z", time.Time{}, "outside the storable range"},
		{"2300-01-01T00:00:00Z", time.Time{}, "outside the storable range"},
		{"yesterday", time.Time{}, "not an RFC 3339 time"},
	} {
		got, err := ParseCreatedAt(c.in)
		var ve *ValidationError
		switch {
		case c.err == "" && (err != nil || !got.Equal(c.want)):
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		case c.err != "" && (!errors.As(err, &ve) || ve.Field != "created_at" || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want a created_at ValidationError saying %q", c.in, err, c.err)
		}
	}
}
