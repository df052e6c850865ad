// Package queue is the capture queue of the agent hooks: capture never runs
// in the agent's time. A Stop, PreCompact or SessionEnd hook adds one entry
// (the store, the transcript, the project) to the queue directory and
// starts a detached drain; the drain ingests every queued transcript of its
// store and removes each entry once it is ingested. An entry that cannot
// be ingested now (the store held by another writer) stays queued for the
// next drain. The queue lives outside the store directory, which holds only
// the store's own files.
//
// It knows neither the store nor how a transcript is ingested: Drain takes
// the ingestion as a function. Entries are small JSON files written by a
// rename, so a reader never sees half of one.
package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Entry is one queued transcript.
type Entry struct {
	DB      string `json:"db"`
	Host    string `json:"host"`
	Path    string `json:"path"`
	Project string `json:"project"`
	Final   bool   `json:"final"`
}

// Queue is a directory of entries, of every store.
type Queue struct{ Dir string }

// Add writes e, keyed by store and transcript: a later event of the same
// session replaces an earlier one (a final one stays final).
func (q Queue) Add(e Entry) error {
	if err := os.MkdirAll(q.Dir, 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(e.DB + "\x00" + e.Path))
	path := filepath.Join(q.Dir, hex.EncodeToString(sum[:12])+".json")
	if old, err := os.ReadFile(path); err == nil {
		var prev Entry
		if json.Unmarshal(old, &prev) == nil && prev.Final {
			e.Final = true
		}
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Pending lists the entry files of the store db (an absolute path).
func (q Queue) Pending(db string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(q.Dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var todo []string
	for _, f := range files {
		var e Entry
		if raw, err := os.ReadFile(f); err != nil || json.Unmarshal(raw, &e) != nil || e.DB != db {
			continue
		}
		todo = append(todo, f)
	}
	return todo, nil
}

// Drain ingests the entry files (Pending's) in order and removes each once
// it is ingested, unless a newer event of the session re-queued it
// meanwhile. It stops at the first failure, and that entry and the rest
// stay; a file another drain took is skipped and a damaged one removed
// (it would never drain).
func Drain(files []string, ingest func(Entry) error) error {
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // another drain took it
		}
		var e Entry
		if err := json.Unmarshal(raw, &e); err != nil {
			_ = os.Remove(f) // a damaged entry would never drain
			continue
		}
		if err := ingest(e); err != nil {
			return fmt.Errorf("ingest %s: %w", e.Path, err)
		}
		if cur, err := os.ReadFile(f); err == nil && string(cur) == string(raw) {
			_ = os.Remove(f) // a newer event of the session re-queued it otherwise
		}
	}
	return nil
}
