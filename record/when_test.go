package record

import (
	"testing"
	"time"
)

// TestParseWhen reads the time bounds the CLI's filter flags take: RFC
// 3339 times as given, ages counted back from now, anything else refused.
func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "2026-01-02T15:04:05Z", want: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		{in: "30m", want: now.Add(-30 * time.Minute)},
		{in: "36h", want: now.Add(-36 * time.Hour)},
		{in: "7d", want: now.Add(-7 * 24 * time.Hour)},
		{in: "2w", want: now.Add(-14 * 24 * time.Hour)},
		{in: "0d", want: now},
		{in: "-3d", bad: true},
		{in: "3y", bad: true},
		{in: "d", bad: true},
		{in: "2026-01-02", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseWhen(c.in, now)
		if c.bad {
			if err == nil {
				t.Errorf("ParseWhen(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestValidationErrorMessage pins the message forms: with a field, and
// without one (a command-line check whose problem names its flag), which
// reads like the CLI's usage errors, as Invalidf makes them.
func TestValidationErrorMessage(t *testing.T) {
	for _, c := range []struct {
		e    ValidationError
		want string
	}{
		{ValidationError{Field: "as_of", Problem: "bad", Fix: "fix it"}, "as_of: bad: fix it"},
		{ValidationError{Field: "as_of", Problem: "bad"}, "as_of: bad"},
		{ValidationError{Problem: "--alpha 2 is not in (0, 1)", Fix: "give a level such as 0.05"}, "--alpha 2 is not in (0, 1): give a level such as 0.05"},
		{ValidationError{Problem: "--data is missing"}, "--data is missing"},
		{*Invalidf("give 0 or more", "--max %d is negative", -1), "--max -1 is negative: give 0 or more"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v.Error() = %q, want %q", c.e, got, c.want)
		}
	}
}
