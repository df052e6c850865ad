package record

import (
	"errors"
	"fmt"
	"strings"
)

// Errors callers test with errors.Is. Returned errors wrap them with the
// id, store directory or versions involved.
var (
	// ErrNotFound: no memory with the given id in the store.
	ErrNotFound = errors.New("memory not found")
	// ErrReadOnly: a write on a store opened with Options.ReadOnly.
	ErrReadOnly = errors.New("store is open read-only")
	// ErrNewerFormat: the store was written by a newer cgraph.
	ErrNewerFormat = errors.New("store has a newer format version")
	// ErrClosed: a call on a closed Engine.
	ErrClosed = errors.New("store is closed")
	// ErrNoStore: the directory holds no store and Options.Create is false.
	ErrNoStore = errors.New("no store in directory")
)

// StoreInUseError says another process holds the store's writer lock.
type StoreInUseError struct {
	Dir string
	PID int // 0 when the holder is unknown
}

func (e *StoreInUseError) Error() string {
	who := "another process"
	stop := "stop that process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
		stop = fmt.Sprintf("stop pid %d", e.PID)
	}
	return fmt.Sprintf("store %s is in use by %s, its only writer: %s and try again (a `cgraph serve` there takes writes over HTTP; reading commands — search, get, list, stats — work beside it with --read-only)", e.Dir, who, stop)
}

// ValidationError is bad input from a caller: which field, what is wrong and
// how to fix it. Field may be empty where Problem already names what was
// wrong (a command-line check that names its flags): the message is then
// "Problem: Fix".
type ValidationError struct {
	Field, Problem, Fix string
}

func (e *ValidationError) Error() string {
	msg := e.Problem
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Fix == "" {
		return msg
	}
	return msg + ": " + e.Fix
}

// Invalidf is a ValidationError without a field, whose problem (formatted
// as fmt.Sprintf does) already names what was wrong — a command-line check
// that names its flag — and fix says how to put it right: its message
// reads "problem: fix", as the CLI's usage errors do.
func Invalidf(fix, format string, args ...any) *ValidationError {
	return &ValidationError{Problem: fmt.Sprintf(format, args...), Fix: fix}
}

// ErrDamaged: the directory holds a store's data files that its RocksDB
// metadata does not account for (CURRENT missing, or a manifest that names
// none of them). Nothing is opened for writing or created over such a
// directory; Repair brings it back.
var ErrDamaged = errors.New("store is damaged")

// DamagedStoreError says what is wrong with a damaged store directory,
// which data files it holds, and how to recover them. errors.Is(err,
// ErrDamaged) holds.
type DamagedStoreError struct {
	Dir     string
	Problem string   // e.g. "its CURRENT file is missing"
	Files   []string // the data files found (table files, logs, manifests), at most a few
	More    int      // how many more data files there are
}

func (e *DamagedStoreError) Error() string {
	files := strings.Join(e.Files, ", ")
	if e.More > 0 {
		files += fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("store %s is damaged: %s, yet it holds data files (%s); nothing was changed: "+
		"run `cgraph check --repair --db %s` to recover it from its newest readable manifest (copy the directory first with `cp -a` if you want a backup); "+
		"never run `cgraph init` on it", e.Dir, e.Problem, files, e.Dir)
}

func (e *DamagedStoreError) Is(target error) bool { return target == ErrDamaged }

// ErrCorrupt marks stored bytes that do not decode. Every decoder of stored
// data — records, fingerprints, derived families, topic snapshots — wraps
// it, naming what it was decoding (family and key, or field and offset).
var ErrCorrupt = errors.New("corrupt store data")
