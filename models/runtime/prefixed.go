package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cgraph/cgraph/internal/parallel"
	"github.com/cgraph/cgraph/models/tokenizer"
)

// Pooled is one text's pooled vector and its token vectors from the same run.
type Pooled struct {
	Dense
	Tokens TokenMatrix
}

// EmbedPrefixed is Embed with an explicit prefix instead of the one Config
// gives a View: callers that embed one text in several roles (an instruction
// per role) share one session this way. The prefix may be empty.
func (m *Model) EmbedPrefixed(ctx context.Context, prefix string, texts []string) ([]Dense, error) {
	return each(ctx, m, TaskEncoder, "EmbedPrefixed", prefix, texts, m.dense)
}

// EmbedWithTokens returns, from one run per batch, each text's pooled vector
// (as Embed) and its token vectors (as TokenVectors), with an explicit prefix.
// It saves the second pass a caller needing both would otherwise pay. Where
// the model has Config.TokenOutput (see Config), the token vectors are that
// output's projected rows (Tokens.Output names it) and the pooled vector is
// the model's own pooled output.
func (m *Model) EmbedWithTokens(ctx context.Context, prefix string, texts []string) ([]Pooled, error) {
	return mapTokens(ctx, m, "EmbedWithTokens", prefix, texts, func(_ int, p Pooled) Pooled {
		p.Tokens.Data = slices.Clone(p.Tokens.Data)
		return p
	})
}

// MapTokens is EmbedWithTokens for a caller that reduces each text's token
// states to something smaller (E12's projection, E10's span pooling): fn gets
// text i's pooled vector and token states while its batch's output is still
// in the run's buffer, and MapTokens returns what fn makes of them, in the
// order of texts. The reduction then overlaps the next batch's run instead of
// following the whole call, and no text's full token matrix outlives its
// batch. p.Tokens.Data is valid only during the call (fn copies what it
// keeps; p.Vector and p.Tokens.IDs are fn's to keep). On cuda fn is called
// concurrently for distinct texts.
func MapTokens[R any](ctx context.Context, m *Model, prefix string, texts []string, fn func(i int, p Pooled) R) ([]R, error) {
	return mapTokens(ctx, m, "MapTokens", prefix, texts, fn)
}

func mapTokens[R any](ctx context.Context, m *Model, call, prefix string, texts []string, fn func(i int, p Pooled) R) ([]R, error) {
	if m.projName != "" {
		return eachOf(ctx, m, TaskEncoder, call, prefix, texts, fetchProjected, func(i int, enc tokenizer.Encoding, r rows) R {
			n := len(enc.IDs)
			tm := TokenMatrix{IDs: enc.IDs, Special: enc.Special, Dim: r.D, Data: r.data[: n*r.D : n*r.D], Output: m.projName, Meta: metaOf(enc)}
			return fn(i, Pooled{Dense: m.densePooled(enc, r.pooled), Tokens: tm})
		})
	}
	return eachOf(ctx, m, TaskEncoder, call, prefix, texts, fetchTokens, func(i int, enc tokenizer.Encoding, r rows) R {
		n := len(enc.IDs)
		tm := TokenMatrix{IDs: enc.IDs, Special: enc.Special, Dim: r.D, Data: r.data[: n*r.D : n*r.D], Meta: metaOf(enc)}
		return fn(i, Pooled{Dense: m.dense(enc, r), Tokens: tm})
	})
}

// dense is one text's pooled vector: Config.Pooling, then Config.Normalize.
func (m *Model) dense(enc tokenizer.Encoding, r rows) Dense {
	var v []float32
	if m.cfg.Pooling == PoolCLS {
		v = clsPool(r.data, r.D)
	} else {
		v = meanPool(r.data, r.T, r.D, r.mask)
	}
	if m.cfg.Normalize {
		l2Normalize(v)
	}
	return Dense{Vector: v, Meta: metaOf(enc)}
}

// encodePrefixed validates and tokenizes all texts, each behind prefix,
// before any inference, so a bad text fails the whole call and nothing is
// half-done. Many texts are tokenized on GOMAXPROCS goroutines (the
// tokenizer is safe for concurrent use), so that a GPU is not left waiting on
// one core; the error reported is the one of the lowest-numbered bad text.
func (m *Model) encodePrefixed(prefix string, texts []string) ([]tokenizer.Encoding, error) {
	encs := make([]tokenizer.Encoding, len(texts))
	errs := make([]error, len(texts))
	parallel.ForEach(len(texts), func(i int) { encs[i], errs[i] = m.encodeOne(prefix, texts[i]) })
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: text %d: %w", m.cfg.ID, i, err)
		}
	}
	return encs, nil
}

// encodeOne refuses an empty or blank text and tokenizes prefix+text.
func (m *Model) encodeOne(prefix, text string) (tokenizer.Encoding, error) {
	if strings.TrimSpace(text) == "" {
		_, err := m.tok.Encode(text, m.cfg.MaxLength) // the tokenizer's own message
		if err == nil {
			err = tokenizer.ErrEmptyText
		}
		return tokenizer.Encoding{}, err
	}
	return m.tok.Encode(prefix+text, m.cfg.MaxLength)
}

// tokenMatrix copies one text's real-token rows (padding dropped) out of the
// batch output, which is only valid during the run callback.
func tokenMatrix(enc tokenizer.Encoding, r rows) TokenMatrix {
	n := len(enc.IDs)
	return TokenMatrix{IDs: enc.IDs, Special: enc.Special, Dim: r.D, Data: slices.Clone(r.data[:n*r.D]), Meta: metaOf(enc)}
}
