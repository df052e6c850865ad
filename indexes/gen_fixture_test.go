package indexes

import (
	"encoding/hex"
	"os"
	"testing"
)

// TestWriteTokenFixture regenerates testdata/token_matrix_v1.hex when run with
// CGRAPH_WRITE_FIXTURES=1; a fixture must only be written once per format version.
func TestWriteTokenFixture(t *testing.T) {
	if os.Getenv("CGRAPH_WRITE_FIXTURES") == "" {
		t.Skip("set CGRAPH_WRITE_FIXTURES=1 to write the format fixture")
	}
	m, err := QuantizeTokens(3, []float32{1, -0.5, 0, 0, 0, 0})
	must(t, err)
	b, err := m.AppendBinary(nil)
	must(t, err)
	must(t, os.WriteFile("testdata/token_matrix_v1.hex", []byte(hex.EncodeToString(b)+"\n"), 0o644))
}
