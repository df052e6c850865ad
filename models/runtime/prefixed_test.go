package runtime

import (
	"context"
	"slices"
	"testing"
)

// TestTinyEmbedWithTokens checks that the one-pass call returns what Embed and
// TokenVectors (checked against an independent computation in tiny_test.go)
// return separately, with an explicit prefix replacing the view's.
func TestTinyEmbedWithTokens(t *testing.T) {
	for _, pooling := range []Pooling{PoolMean, PoolCLS} {
		t.Run(pooling.String(), func(t *testing.T) {
			cfg := tinyConfig("tiny_encoder.onnx")
			cfg.Pooling, cfg.Normalize, cfg.PassagePrefix = pooling, true, "data "
			m := openTiny(t, cfg)
			ctx := context.Background()
			both, err := m.EmbedWithTokens(ctx, "data ", tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			dense, err := m.Embed(ctx, ViewPassage, tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			toks, err := m.TokenVectors(ctx, ViewPassage, tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			pre, err := m.EmbedPrefixed(ctx, "data ", tinyTexts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tinyTexts {
				if !slices.Equal(both[i].Vector, dense[i].Vector) || !slices.Equal(pre[i].Vector, dense[i].Vector) {
					t.Errorf("text %d: pooled vectors differ from Embed", i)
				}
				if !slices.Equal(both[i].Tokens.IDs, toks[i].IDs) || !slices.Equal(both[i].Tokens.Data, toks[i].Data) || both[i].Tokens.Meta != toks[i].Meta {
					t.Errorf("text %d: token vectors differ from TokenVectors", i)
				}
			}
			other, err := m.EmbedWithTokens(ctx, "search ", tinyTexts[:1])
			if err != nil {
				t.Fatal(err)
			}
			enc, err := m.Tokenizer().Encode("search "+tinyTexts[0], cfg.MaxLength)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(other[0].Tokens.IDs, enc.IDs) {
				t.Errorf("prefix %q: ids %v, want %v", "search ", other[0].Tokens.IDs, enc.IDs)
			}
		})
	}
}

func TestEmbedPrefixedRefusesEmpty(t *testing.T) {
	m := openTiny(t, tinyConfig("tiny_encoder.onnx"))
	if _, err := m.EmbedPrefixed(context.Background(), "data ", []string{"fox", "  "}); err == nil {
		t.Fatal("whitespace-only text accepted")
	}
}
