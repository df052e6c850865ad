package hookconfig

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// TargetStatus is what one configuration file holds of cgraph's hooks
// (hooks status --json).
type TargetStatus struct {
	Host   string `json:"host"`
	Scope  string `json:"scope"`
	File   string `json:"file"`
	Exists bool   `json:"exists"`
	Error  string `json:"error,omitempty"` // the file could not be read or is not valid
	// Events are the host's events cgraph hooks into; Other are cgraph
	// entries under events it does not install (hand-written ones).
	Events []EventStatus `json:"events"`
	Other  []EventStatus `json:"other,omitempty"`
}

// EventStatus is one event's cgraph entry in a file.
type EventStatus struct {
	Event         string `json:"event"`
	Installed     bool   `json:"installed"`
	Entries       int    `json:"entries,omitempty"` // more than 1: the host runs cgraph that many times
	Matcher       string `json:"matcher,omitempty"`
	Command       string `json:"command,omitempty"`
	Binary        string `json:"binary,omitempty"`
	BinaryMissing bool   `json:"binary_missing,omitempty"`
	DB            string `json:"db,omitempty"` // "" : the hook's default store
	ModelsDir     string `json:"models_dir,omitempty"`
}

// Status reads one file and reports cgraph's entries in it.
func Status(t Target) TargetStatus {
	ts := TargetStatus{Host: t.Host.Name, Scope: string(t.Scope), File: t.Path, Events: []EventStatus{}}
	f, err := ReadFile(t)
	if err != nil {
		ts.Error = err.Error()
		return ts
	}
	ts.Exists = f.exists
	found := t.Host.format.find(f.root, t.Host.Name)
	status := func(name string, hs []foundHook) EventStatus {
		es := EventStatus{Event: name, Installed: len(hs) > 0, Entries: len(hs)}
		if len(hs) == 1 {
			es.Entries = 0
		}
		if len(hs) > 0 {
			h := hs[0]
			es.Command, es.Matcher, es.Binary, es.DB, es.ModelsDir = h.Command, h.Matcher, h.Parsed.Binary, h.Parsed.DB, h.Parsed.ModelsDir
			if _, err := os.Stat(h.Parsed.Binary); err != nil {
				es.BinaryMissing = true
			}
		}
		return es
	}
	for _, e := range t.Host.Events {
		ts.Events = append(ts.Events, status(e.Name, found[e.Name]))
		delete(found, e.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(found)) {
		ts.Other = append(ts.Other, status(name, found[name]))
	}
	return ts
}

// Survey reads every target (Status) and lists the stores their installed
// hooks use, each once, absolute, in the order met: def (the default
// store) stands for a hook that names none, and is the one store listed
// when no hook is installed. broken are the errors of the files that could
// not be read or are not valid.
func Survey(targets []Target, def string) (statuses []TargetStatus, stores, broken []string) {
	statuses = []TargetStatus{}
	seen := map[string]bool{}
	addStore := func(db string) {
		if db == "" {
			db = def
		}
		if abs, err := filepath.Abs(db); err == nil {
			db = abs
		}
		if !seen[db] {
			seen[db] = true
			stores = append(stores, db)
		}
	}
	for _, t := range targets {
		ts := Status(t)
		if ts.Error != "" {
			broken = append(broken, ts.Error)
		}
		for _, e := range append(append([]EventStatus(nil), ts.Events...), ts.Other...) {
			if e.Installed {
				addStore(e.DB)
			}
		}
		statuses = append(statuses, ts)
	}
	if len(stores) == 0 {
		addStore("")
	}
	return statuses, stores, broken
}
