package ops

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	toolRE = regexp.MustCompile(`toolu_[0-9a-f]+`)
)

// synthTranscript is at least size bytes of transcript made of the fixture
// transcripts repeated, each repetition with fresh uuids, tool ids and
// texts (so that no turn is an exact copy of another's content).
func synthTranscript(tb testing.TB, size int) []byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtures, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixture transcripts in %s: %v", fixtures, err)
	}
	var src []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		src = append(src, string(b))
	}
	var out strings.Builder
	for r := 0; out.Len() < size; r++ {
		s := src[r%len(src)]
		s = uuidRE.ReplaceAllStringFunc(s, func(u string) string {
			h := sha256.Sum256([]byte(fmt.Sprint(r, u)))
			return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
		})
		s = toolRE.ReplaceAllStringFunc(s, func(id string) string { return fmt.Sprintf("%s%d", id, r) })
		s = strings.ReplaceAll(s, `"text":"`, fmt.Sprintf(`"text":"(part %d) `, r))
		s = strings.ReplaceAll(s, `"content":"`, fmt.Sprintf(`"content":"(part %d) `, r))
		s = strings.ReplaceAll(s, `"command":"`, fmt.Sprintf(`"command":"cd /w/%d && `, r))
		out.WriteString(s)
	}
	return []byte(out.String())
}
