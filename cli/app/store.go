package app

import (
	"errors"
	"fmt"
	"os"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/models/runtime"
	"github.com/cgraph/cgraph/record"
	"github.com/cgraph/cgraph/redact"
)

// StoreOpen says how open opens the memory store.
type StoreOpen struct {
	Write   bool // take the writer lock; refused with --read-only
	Create  bool // create the store when there is none (init)
	Reembed bool // open despite slot producer mismatches (reembed, embedders)
	// DeferSlots leaves the slots of models other than E1's to the filler
	// (engine.DeferredSlots); DeferAll every model slot, E1's too
	// (engine.AllModelSlots: searchable by keywords at once); ManualFill:
	// the command runs FillPending.
	DeferSlots, DeferAll, ManualFill bool
	// OnConflict is the policy of writes that name none (serve --on-conflict).
	OnConflict record.ConflictPolicy
}

// OpenStore opens the memory store in a.DBDir with the embedders of
// a.ModelsDir (engine.LoadModels: the models installed there, the model-free
// slots, and every other slot unavailable with its reason). write says the
// command writes: then the store takes the writer lock and --read-only is
// refused with a usage error; otherwise it opens read-only beside a writer.
// A store built with other models than the installed ones is refused with
// *engine.ProducerMismatchError, whose message names the slots and the
// `cgraph reembed` that fixes them. The caller must close it with
// a.CloseStore, which also releases the models.
//
// Loading the models costs about a second; commands that only read records
// (list, stats, get) use OpenRecords instead.
func (a *App) OpenStore(write bool) (*engine.Engine, error) {
	return a.Open(StoreOpen{Write: write})
}

func (a *App) Open(o StoreOpen) (*engine.Engine, error) {
	if o.Write && a.ReadOnly {
		return nil, &UsageError{Problem: "--read-only was given but this command writes to the store", Fix: "drop --read-only"}
	}
	reg, closeReg, err := a.LoadRegistry()
	if err != nil {
		return nil, err
	}
	s, err := a.OpenStoreWith(reg, closeReg, o)
	if err != nil {
		return nil, errors.Join(err, CloseRegistry(closeReg))
	}
	return s, nil
}

// LoadRegistry builds the 13-slot registry from a.ModelsDir on a.Device.
// A missing model makes its slot unavailable, not an error; a model file
// that cannot be opened is an error.
func (a *App) LoadRegistry() (*engine.Registry, func() error, error) {
	return a.LoadRegistryOpen(false)
}

// LoadRegistryOpen is LoadRegistry; with openNow every model session opens
// (and runs one text) before it returns, so a device that cannot serve
// fails here, naming what is missing.
func (a *App) LoadRegistryOpen(openNow bool) (*engine.Registry, func() error, error) {
	dev, err := runtime.ParseDevice(a.Device)
	if err != nil {
		return nil, nil, &UsageError{Problem: err.Error(), Fix: "use --device cpu or --device cuda"}
	}
	cfg := engine.ModelsConfig{ModelsDir: a.ModelsDir, Device: dev, OpenNow: openNow}
	if a.Precision != "default" {
		cfg.Precision = engine.Precision(a.Precision)
	}
	reg, closeReg, err := engine.LoadModels(a.Context(), cfg)
	if errors.Is(err, runtime.ErrCUDAUnavailable) {
		return nil, nil, fmt.Errorf("load the embedders from %s on cuda: %w", a.ModelsDir, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load the embedders from %s: %w: run `cgraph models verify` to check the installed models", a.ModelsDir, err)
	}
	return reg, closeReg, nil
}

// OpenStoreWith opens the store with an already loaded registry; on success
// the store owns closeReg (a.CloseStore calls it).
func (a *App) OpenStoreWith(reg *engine.Registry, closeReg func() error, o StoreOpen) (*engine.Engine, error) {
	red, err := Redactor()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{ReadOnly: !o.Write, Create: o.Create, MaxContentBytes: a.MaxContentBytes, Embedders: reg, Reembed: o.Reembed, Fusion: a.FusionChoice(),
		ManualFill: o.ManualFill, Redactor: red, OnConflict: o.OnConflict}
	switch {
	case o.DeferAll:
		opts.DeferSlots = engine.AllModelSlots(reg)
	case o.DeferSlots:
		opts.DeferSlots = engine.DeferredSlots(reg)
	}
	s, err := engine.Open(a.DBDir, opts)
	if err != nil {
		return nil, err
	}
	if a.registryClosers == nil {
		a.registryClosers = map[*engine.Engine]func() error{}
	}
	a.registryClosers[s] = closeReg
	return s, nil
}

// CloseStore closes s and then the models it used, joining both errors to
// *err so no error is lost in a defer.
func (a *App) CloseStore(s *engine.Engine, err *error) {
	if cerr := s.Close(); cerr != nil {
		*err = errors.Join(*err, fmt.Errorf("close store %s: %w", s.Dir(), cerr))
	}
	closeReg := a.registryClosers[s]
	delete(a.registryClosers, s)
	*err = errors.Join(*err, CloseRegistry(closeReg))
}

func CloseRegistry(closeReg func() error) error {
	if closeReg == nil {
		return nil
	}
	if err := closeReg(); err != nil {
		return fmt.Errorf("release the models: %w", err)
	}
	return nil
}

// OpenStoreForInspection opens the store for get --fingerprint: for writing
// (so the read records the access), or read-only with --read-only or when
// another process holds the writer lock. It opens despite slot producer
// mismatches, since showing which producer made each stored value is what
// one inspects a fingerprint for; nothing is embedded or searched.
func (a *App) OpenStoreForInspection() (*engine.Engine, error) {
	return WriterElseReader(a.ReadOnly, func(write bool) (*engine.Engine, error) {
		return a.Open(StoreOpen{Write: write, Reembed: true})
	}, nil)
}

// WriterElseReader opens the store with open(true), or with open(false)
// when readOnly is set or another process holds the writer lock; inUse
// (when not nil) hears of that process before the read-only open. It is
// how a command that would record accesses or save a result still reads
// beside a running writer.
func WriterElseReader(readOnly bool, open func(write bool) (*engine.Engine, error), inUse func(*record.StoreInUseError)) (*engine.Engine, error) {
	if readOnly {
		return open(false)
	}
	s, err := open(true)
	var held *record.StoreInUseError
	if !errors.As(err, &held) {
		return s, err
	}
	if inUse != nil {
		inUse(held)
	}
	return open(false)
}

// OpenSearcher opens the store read-only for search, refusing an empty
// store with how to fill it. close releases the store and the models.
func (a *App) OpenSearcher() (Searcher, func() error, error) {
	s, err := a.OpenStore(false)
	if err != nil {
		return nil, nil, err
	}
	closeFn := func() (err error) {
		a.CloseStore(s, &err)
		return err
	}
	st, err := s.Stats(a.Context())
	if err != nil {
		return nil, nil, errors.Join(err, closeFn())
	}
	if st.Memories == 0 {
		return nil, nil, errors.Join(&ExitCodeError{Code: ExitError,
			Msg: fmt.Sprintf("store %s holds no memories: add some with `cgraph add TEXT` or `cgraph add --jsonl F`, or try the samples in a new store with `cgraph --db DIR init --samples`", s.Dir())},
			closeFn())
	}
	return s, closeFn, nil
}

// Redactor is the built-in secret redaction plus the rules of the file
// $CGRAPH_REDACT_RULES names (one "NAME REGEXP" a line), when set.
func Redactor() (*redact.Redactor, error) {
	r := redact.Default()
	path := os.Getenv("CGRAPH_REDACT_RULES")
	if path == "" {
		return r, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &UsageError{Problem: fmt.Sprintf("$CGRAPH_REDACT_RULES: %v", err), Fix: "point it at a readable file of NAME REGEXP lines, or unset it"}
	}
	defer f.Close()
	if err := r.LoadRules(f, path); err != nil {
		return nil, &UsageError{Problem: fmt.Sprintf("$CGRAPH_REDACT_RULES: %v", err), Fix: "fix the line it names (NAME REGEXP, RE2 syntax)"}
	}
	return r, nil
}
