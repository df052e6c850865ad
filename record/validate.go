package record

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Input limits besides the content limit (given to Validate).
const (
	DefaultMaxContentBytes = 1 << 20
	MaxTags                = 64
	MaxTagBytes            = 128
	MaxSourceBytes         = 4096
	MaxSessionBytes        = 256
	MaxProjectBytes        = 128
	MaxMetaKeys            = 32
	MaxMetaKeyBytes        = 64
	MaxMetaValueBytes      = 1024
)

// Times a store can hold: after the epoch and before int64 nanoseconds
// overflow (2262).
var (
	minCreatedAt = time.Unix(0, 1)
	maxCreatedAt = time.Unix(0, math.MaxInt64)
)

// Validate checks n against the store's rules without touching a store;
// maxBytes bounds the content (0 means DefaultMaxContentBytes). It returns a
// *ValidationError for the first problem found.
func (n NewMemory) Validate(maxBytes int) error {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxContentBytes
	}
	switch {
	case !utf8.ValidString(n.Content):
		return &ValidationError{"content", "is not valid UTF-8", "send UTF-8 text (convert the file's encoding first)"}
	case strings.TrimSpace(n.Content) == "":
		return &ValidationError{"content", "is empty", "give the memory some text"}
	case len(n.Content) > maxBytes:
		return &ValidationError{"content", fmt.Sprintf("is %d bytes, over the limit of %d", len(n.Content), maxBytes),
			"split it into smaller memories or raise the content limit"}
	}
	if _, err := ParseConflictPolicy(string(n.OnConflict)); err != nil {
		return err
	}
	if n.Type != "" && !n.Type.Known() {
		return &ValidationError{"type", fmt.Sprintf("unknown type %q", n.Type), "use one of " + typeNames()}
	}
	if len(n.Tags) > MaxTags {
		return &ValidationError{"tags", fmt.Sprintf("%d tags, over the limit of %d", len(n.Tags), MaxTags), "keep the most useful tags"}
	}
	for i, t := range n.Tags {
		if err := checkText(fmt.Sprintf("tags[%d]", i), t, MaxTagBytes, true); err != nil {
			return err
		}
	}
	if err := checkText("source", n.Source, MaxSourceBytes, false); err != nil {
		return err
	}
	if err := checkText("session", n.Session, MaxSessionBytes, false); err != nil {
		return err
	}
	if n.Sequence > 0 && n.Session == "" {
		return &ValidationError{"sequence", "is set without a session", "give the session the sequence number belongs to, or drop the sequence"}
	}
	if !n.CreatedAt.IsZero() && (n.CreatedAt.Before(minCreatedAt) || n.CreatedAt.After(maxCreatedAt)) {
		return &ValidationError{"created_at", fmt.Sprintf("%s is outside the storable range", n.CreatedAt.Format(time.RFC3339)),
			"give a time between 1970 and 2262, or leave it empty for now"}
	}
	if err := CheckImportance(n.Importance); err != nil {
		return err
	}
	if err := CheckProject(n.Project); err != nil {
		return err
	}
	return ValidateMeta(n.Meta)
}

// CheckImportance refuses an importance outside [0, 1].
func CheckImportance(v float64) error {
	if math.IsNaN(v) || v < 0 || v > 1 {
		return &ValidationError{"importance", fmt.Sprintf("%v is outside [0, 1]", v), "give a number from 0 to 1"}
	}
	return nil
}

// CheckProject checks a project name: short text without control
// characters; "" is the default project.
func CheckProject(p string) error {
	return checkText("project", p, MaxProjectBytes, false)
}

// ValidateMeta checks caller metadata: at most MaxMetaKeys keys, each of
// letters, digits and "_.-" (so that key=value filters parse without
// quoting), values short text without control characters.
func ValidateMeta(meta map[string]string) error {
	if len(meta) > MaxMetaKeys {
		return &ValidationError{"meta", fmt.Sprintf("%d keys, over the limit of %d", len(meta), MaxMetaKeys), "keep the keys you filter or read by"}
	}
	for k, v := range meta {
		if err := CheckMetaKey(k); err != nil {
			return err
		}
		if err := checkText("meta."+k, v, MaxMetaValueBytes, false); err != nil {
			return err
		}
	}
	return nil
}

// CheckMetaKey checks one metadata key (see ValidateMeta).
func CheckMetaKey(k string) error {
	if k == "" || len(k) > MaxMetaKeyBytes {
		return &ValidationError{"meta", fmt.Sprintf("key %q is empty or over %d bytes", k, MaxMetaKeyBytes), "use a short key such as ticket or file"}
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return &ValidationError{"meta", fmt.Sprintf("key %q contains %q", k, r), "use letters, digits, '_', '.' and '-' in metadata keys"}
		}
	}
	return nil
}

// ParseMeta parses "key=value" pairs (CLI --meta, filters) into a map; a
// later pair overrides an earlier one with the same key.
func ParseMeta(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, &ValidationError{"meta", fmt.Sprintf("%q has no '='", p), "write metadata as key=value"}
		}
		if err := CheckMetaKey(k); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, ValidateMeta(out)
}

// checkText checks a short text field: UTF-8, length, no control characters,
// and (when required) not empty.
func checkText(field, s string, maxBytes int, required bool) error {
	switch {
	case !utf8.ValidString(s):
		return &ValidationError{field, "is not valid UTF-8", "send UTF-8 text"}
	case required && strings.TrimSpace(s) == "":
		return &ValidationError{field, "is empty", "drop empty entries"}
	case len(s) > maxBytes:
		return &ValidationError{field, fmt.Sprintf("is %d bytes, over the limit of %d", len(s), maxBytes), "shorten it"}
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return &ValidationError{field, fmt.Sprintf("contains the control character %U", r), "remove control characters (tabs, newlines, escapes)"}
		}
	}
	return nil
}

// ParseCreatedAt parses a created_at given by a user (RFC 3339). "" is the
// zero time, which Add replaces by now; any time given explicitly must be
// storable, the zero time 0001-01-01T00:00:00Z included, which would
// otherwise be silently replaced by now.
func ParseCreatedAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return t, &ValidationError{"created_at", fmt.Sprintf("%q is not an RFC 3339 time", s), "write it like 2026-01-02T15:04:05Z"}
	}
	if t.Before(minCreatedAt) || t.After(maxCreatedAt) {
		return t, &ValidationError{"created_at", fmt.Sprintf("%s is outside the storable range", s), "give a time between 1970 and 2262, or leave it out for now"}
	}
	return t, nil
}
