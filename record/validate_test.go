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

func TestParseAsOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-03-01T14:30:00Z", time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC), true},
		{"2026-03-01T14:30:00+02:00", time.Date(2026, 3, 1, 12, 30, 0, 0, time.UTC), true},
		{"2026-03-01", time.Date(2026, 3, 1, 23, 59, 59, 999999999, time.UTC), true},
		{"2026-02-30", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		got, err := ParseAsOf(c.in)
		if (err == nil) != c.ok || !got.Equal(c.want) {
			t.Errorf("ParseAsOf(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
		var ve *ValidationError
		if err != nil && (!errors.As(err, &ve) || !strings.Contains(ve.Fix, "2026-03-01")) {
			t.Errorf("ParseAsOf(%q): the error does not say what to give: %v", c.in, err)
		}
	}
}

// FuzzParseAsOf: any text either parses to a UTC time that an RFC 3339
// round trip keeps, or is refused with a ValidationError; never a panic.
func FuzzParseAsOf(f *testing.F) {
	for _, s := range []string{"2026-03-01", "2026-03-01T14:30:00Z", "2026-03-01T14:30:00.5-07:00", "0000-01-01", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAsOf(s)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is not a ValidationError: %v", err)
			}
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("%q parsed to a non-UTC time %v", s, got)
		}
		back, err := ParseAsOf(got.Format(time.RFC3339Nano))
		if err != nil || !back.Equal(got) {
			t.Fatalf("%q → %v does not survive RFC 3339: %v, %v", s, got, back, err)
		}
	})
}
