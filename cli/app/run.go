package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/cgraph/cgraph/contextpack"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/spf13/cobra"
)

// Search runs req on the cgraph serve of this store when one answers (POST
// /v1/search/explain), else here.
func (a *App) Search(cmd *cobra.Command, req engine.SearchRequest) (ops.SearchAnswer, error) {
	if srv, ok := a.Server(cmd); ok {
		var ans ops.SearchAnswer
		err := srv.Post(a.Context(), "/v1/search/explain", req, &ans)
		if !errors.Is(err, ErrNoServer) {
			return ans, err
		}
	}
	s, closeStore, err := a.OpenSearcher()
	if err != nil {
		return ops.SearchAnswer{}, err
	}
	defer func() { err = errors.Join(err, closeStore()) }()
	res, err := s.Search(a.Context(), req)
	if err != nil {
		return ops.SearchAnswer{}, SearchError(err)
	}
	ans := ops.SearchAnswerOf(res, req)
	if sl, ok := s.(interface{ Slots() []engine.SlotInfo }); ok {
		ans.Models = ops.ModelDevices(sl.Slots())
	}
	return ans, nil
}

// Searcher is what search needs from an open store.
type Searcher interface {
	Search(ctx context.Context, req engine.SearchRequest) (engine.SearchResult, error)
}

// SearchError adds how to fix the errors a search can end with.
func SearchError(err error) error {
	switch {
	case errors.Is(err, engine.ErrSlotUnavailable):
		return fmt.Errorf("%w: see `cgraph embedders` for which slots are ready, and `cgraph models pull ID` to install a model", err)
	}
	return err
}

// FillPending computes every pending deferred slot of the store, batch by
// batch. An interrupt leaves the rest pending, persisted, for `cgraph fill`
// or a cgraph serve.
func (a *App) FillPending(s *engine.Engine) error {
	for {
		n, err := s.FillPending(a.Context(), 64)
		if err != nil {
			left, _ := s.Pending(context.WithoutCancel(a.Context()))
			if ctxErr := a.Context().Err(); ctxErr != nil {
				err = ctxErr // the interrupt, not each slot's report of it
			}
			return fmt.Errorf("fill the deferred slots: %d memories still wait for them, stored and searchable; `cgraph fill` (or a running cgraph serve) completes them: %w", left, err)
		}
		if n == 0 {
			return nil
		}
	}
}

// TokenCounter counts with the e5-small-v2 tokenizer of the models
// directory, loaded on the first count, else approximately
// (contextpack.ModelsCounter).
func (a *App) TokenCounter() ops.TokenCounter {
	return contextpack.ModelsCounter(a.ModelsDir, a.Warnf)
}
