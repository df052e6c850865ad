package httpapi

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/cgraph/cgraph/record"
)

// ReadToken reads the bearer token file of a server (serve --token-file)
// or of its client ($CGRAPH_TOKEN_FILE); "" with no path. A file that
// cannot be read, holds fewer than 16 characters or more than one word is
// a *record.ValidationError naming --token-file and how to fix it.
func ReadToken(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", record.Invalidf("give a readable file holding the token", "--token-file: %v", err)
	}
	t := strings.TrimSpace(string(b))
	switch {
	case len(t) < 16:
		return "", record.Invalidf("put a random secret of 16 or more characters in it, e.g. `openssl rand -hex 32 > FILE`", "--token-file %s holds %d characters", path, len(t))
	case strings.ContainsAny(t, " \t\r\n"):
		return "", record.Invalidf("put the token alone on one line", "--token-file %s holds more than one word", path)
	}
	return t, nil
}

// TokenFileWarning says what is wrong with a token file others can read
// (the secret then is not one); "" when only its owner can. A warning,
// not a refusal: the server still starts for a user who shares the
// machine with no one, and the message says how to fix it.
func TokenFileWarning(path string) string {
	if path == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("--token-file %s can be read by other users (mode %04o): run `chmod 600 %s`", path, fi.Mode().Perm(), path)
}

// IsLoopback reports whether host (a name or an address, without a port)
// is this machine only: localhost or a loopback address. A server on any
// other host needs a token.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
