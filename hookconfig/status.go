package hookconfig

import (
	"maps"
	"os"
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
