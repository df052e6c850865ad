package httpapi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestTokenFileWarning: a token file others can read is named with its
// mode and the fix; an owner-only one is not.
func TestTokenFileWarning(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		want string
	}{
		{0o600, ""},
		{0o400, ""},
		{0o644, "can be read by other users (mode 0644): run `chmod 600"},
		{0o640, "(mode 0640)"},
	} {
		p := filepath.Join(dir, c.mode.String())
		if err := os.WriteFile(p, []byte("0123456789abcdef0123\n"), c.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil { // the umask may have narrowed it
			t.Fatal(err)
		}
		got := TokenFileWarning(p)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("mode %04o: %q, want %q", c.mode, got, c.want)
		}
	}
}

// TestReadToken: no path is no token; a good file is its trimmed token;
// a missing, short or many-word file is a validation error saying why.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if tok, err := ReadToken(""); tok != "" || err != nil {
		t.Fatalf(`ReadToken("") = %q, %v`, tok, err)
	}
	if tok, err := ReadToken(write("good", "  0123456789abcdef0123\n")); tok != "0123456789abcdef0123" || err != nil {
		t.Fatalf("ReadToken(good) = %q, %v", tok, err)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "--token-file: open"},
		{write("short", "abc\n"), "holds 3 characters: put a random secret"},
		{write("words", "0123456789abcdef 0123456789abcdef\n"), "holds more than one word"},
	} {
		_, err := ReadToken(c.path)
		var ve *record.ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadToken(%s) = %v, want a validation error holding %q", c.path, err, c.want)
		}
	}
}

// TestIsLoopback: localhost and loopback addresses only.
func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"0.0.0.0": false, "10.0.0.5": false, "example.com": false, "": false, "LOCALHOST": false} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
