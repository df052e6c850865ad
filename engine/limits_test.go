package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/record"
)

// TestQueryLimit: a query over MaxQueryBytes is refused as bad input, at the
// limit it is searched.
func TestQueryLimit(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "s"), modelFreeRegistry(t))
	if _, err := s.Add(ctx, record.NewMemory{Content: "a memory to find"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Search(ctx, SearchRequest{Query: strings.Repeat("a", MaxQueryBytes+1)})
	var ve *record.ValidationError
	if !errors.As(err, &ve) || ve.Field != "query" || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("a query over the limit: %v", err)
	}
	if _, err := s.Search(ctx, SearchRequest{Query: strings.Repeat("memory ", MaxQueryBytes/7)}); errors.As(err, &ve) {
		t.Fatalf("a query at the limit was refused: %v", err)
	}
}
