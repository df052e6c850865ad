package hookconfig

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cgraph/cgraph/internal/shellword"
	"github.com/cgraph/cgraph/record"
)

// Host is an agent host whose hooks cgraph installs: where its
// configuration lives and which of its events run `cgraph hook HOST EVENT`.
type Host struct {
	Name   string  // as given on the command line and to cgraph hook
	Dir    string  // the configuration directory, in the project and in $HOME
	File   string  // the file in Dir
	Events []Event // in the order they are installed and listed
	format hooksFormat
}

// Event is one event of a host that cgraph hooks into.
type Event struct {
	Name    string // the host's event name, passed verbatim to cgraph hook
	Matcher string // Claude Code: the tool names (a regular expression); "" matches every one
	Timeout int    // Claude Code: seconds before the host kills the hook; 0: the host's default
	Does    string // one line for status and --help
}

// Hosts are the hosts cgraph knows, by name.
//
// Claude Code (its hooks reference, docs.claude.com/en/docs/claude-code/hooks):
// .claude/settings.json or
// ~/.claude/settings.json, {"hooks": {EVENT: [{"matcher", "hooks":
// [{"type": "command", "command", "timeout" (seconds)}]}]}}; the matcher
// applies to tool events (PostToolUse) and to SessionStart's source.
// Cursor (cursor.com/docs/agent/hooks, as quoted by tools that install
// into it): .cursor/hooks.json or ~/.cursor/hooks.json, {"version": 1,
// "hooks": {EVENT: [{"command"}]}}; no timeout is written, as sources
// disagree on its unit.
var Hosts = []*Host{
	{
		Name: "claude-code", Dir: ".claude", File: "settings.json", format: claudeFormat{},
		Events: []Event{
			{Name: "SessionStart", Timeout: 10, Does: "injects the project's packed context"},
			{Name: "UserPromptSubmit", Timeout: 10, Does: "injects memories relevant to the prompt"},
			{Name: "PostToolUse", Matcher: "Read|Edit|Write|MultiEdit", Timeout: 10, Does: "surfaces the memories of a file read or edited, once per session"},
			{Name: "Stop", Timeout: 30, Does: "ingests the new turns of the transcript"},
			{Name: "PreCompact", Timeout: 30, Does: "ingests the transcript before it is compacted"},
			{Name: "SessionEnd", Timeout: 30, Does: "ingests the rest of the transcript"},
		},
	},
	{
		Name: "cursor", Dir: ".cursor", File: "hooks.json", format: cursorFormat{},
		Events: []Event{
			{Name: "beforeSubmitPrompt", Does: "recalls memories for the prompt"},
			{Name: "afterFileEdit", Does: "recalls the memories of the edited file"},
			{Name: "stop", Does: "captures the end of the agent's turn"},
		},
	},
}

// HostNames lists the hosts for messages.
func HostNames() string {
	var n []string
	for _, h := range Hosts {
		n = append(n, h.Name)
	}
	return strings.Join(n, " or ")
}

func FindHost(name string) (*Host, error) {
	for _, h := range Hosts {
		if h.Name == name {
			return h, nil
		}
	}
	return nil, &record.ValidationError{Field: "host", Problem: fmt.Sprintf("unknown host %q", name), Fix: "give " + HostNames()}
}

// Event returns the host's event called name.
func (h *Host) Event(name string) (Event, bool) {
	for _, e := range h.Events {
		if e.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

// Command is the command line a host runs for event: the cgraph
// binary, "hook HOST EVENT", then the store and models flags when the
// user chose them, so the hook uses the store the install named.
type Command struct {
	Binary, DB, ModelsDir string
}

// Line is the command line the host runs for event.
func (c Command) Line(host, event string) string {
	parts := []string{shellword.Quote(c.Binary), "hook", host, event}
	if c.DB != "" {
		parts = append(parts, "--db", shellword.Quote(c.DB))
	}
	if c.ModelsDir != "" {
		parts = append(parts, "--models-dir", shellword.Quote(c.ModelsDir))
	}
	return strings.Join(parts, " ")
}

// ParseCommand recognises a command line that runs `hook HOST EVENT`
// of a cgraph binary (a program whose name starts with "cgraph") and
// returns what it names. Entries so recognised are cgraph's: install
// replaces them, uninstall removes them; every other entry is left alone.
func ParseCommand(line, host string) (c Command, event string, ok bool) {
	f := shellword.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(filepath.Base(f[0]), "cgraph") {
		return c, "", false
	}
	c.Binary = f[0]
	for i := 1; i+2 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == host {
			event, ok = f[i+2], true
			break
		}
	}
	if !ok {
		return c, "", false
	}
	for j := 1; j < len(f); j++ {
		switch {
		case f[j] == "--db" && j+1 < len(f):
			c.DB = f[j+1]
		case strings.HasPrefix(f[j], "--db="):
			c.DB = strings.TrimPrefix(f[j], "--db=")
		case f[j] == "--models-dir" && j+1 < len(f):
			c.ModelsDir = f[j+1]
		case strings.HasPrefix(f[j], "--models-dir="):
			c.ModelsDir = strings.TrimPrefix(f[j], "--models-dir=")
		}
	}
	return c, event, true
}

// hooksFormat is how a host lays out its hooks in the configuration's
// root object. Every method leaves entries that are not cgraph's as they
// are, in their place.
type hooksFormat interface {
	// skeleton is the root of a file cgraph creates.
	skeleton() *jsonObject
	// check refuses a root cgraph does not understand (nothing is changed).
	check(root *jsonObject) error
	// set makes cmd the one cgraph entry of ev, in the place of the first
	// one there was, and reports whether anything changed.
	set(root *jsonObject, ev Event, cmd string) bool
	// remove deletes cgraph's entries of the named events (every event
	// when names is empty) and reports how many it removed.
	remove(root *jsonObject, host string, names []string) int
	// find lists cgraph's entries, by event.
	find(root *jsonObject, host string) map[string][]foundHook
}

// foundHook is a cgraph entry in a host's configuration.
type foundHook struct {
	Command string
	Matcher string
	Parsed  Command
}

// hooksObject returns root's "hooks" object, creating it when create is
// set; nil when there is none.
func hooksObject(root *jsonObject, create bool) *jsonObject {
	v, ok := root.get("hooks")
	if !ok {
		if !create {
			return nil
		}
		o := &jsonObject{}
		root.set("hooks", o)
		return o
	}
	o, _ := v.(*jsonObject) // check refused any other kind
	return o
}

// checkHooksShape refuses a "hooks" member that is not an object of
// arrays: cgraph would not know where its entries go.
func checkHooksShape(root *jsonObject) error {
	v, ok := root.get("hooks")
	if !ok {
		return nil
	}
	hooks, isObj := v.(*jsonObject)
	if !isObj {
		return fmt.Errorf(`"hooks" is %s, not an object`, orderedKind(v))
	}
	for _, m := range hooks.members {
		if _, isArr := m.val.([]any); !isArr {
			return fmt.Errorf(`"hooks"."%s" is %s, not an array`, m.key, orderedKind(m.val))
		}
	}
	return nil
}

// commandOf returns an entry's "command" string.
func commandOf(v any) (string, bool) {
	o, ok := v.(*jsonObject)
	if !ok {
		return "", false
	}
	c, ok := o.get("command")
	s, isStr := c.(string)
	return s, ok && isStr
}

// isCgraphEntry reports whether v is an entry of host's hooks that runs
// cgraph hook for one of names (any event when names is empty).
func isCgraphEntry(v any, host string, names []string) bool {
	cmd, ok := commandOf(v)
	if !ok {
		return false
	}
	_, ev, ok := ParseCommand(cmd, host)
	if !ok {
		return false
	}
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == ev {
			return true
		}
	}
	return false
}

// claudeFormat: {"hooks": {EVENT: [{"matcher": M, "hooks": [{"type":
// "command", "command": C, "timeout": S}]}]}}.
type claudeFormat struct{}

func (claudeFormat) skeleton() *jsonObject { return &jsonObject{} }

func (claudeFormat) check(root *jsonObject) error { return checkHooksShape(root) }

// groupHooks returns a matcher group's "hooks" array.
func groupHooks(g any) ([]any, bool) {
	o, ok := g.(*jsonObject)
	if !ok {
		return nil, false
	}
	v, _ := o.get("hooks")
	a, ok := v.([]any)
	return a, ok
}

func groupMatcher(g any) string {
	o, _ := g.(*jsonObject)
	if o == nil {
		return ""
	}
	v, _ := o.get("matcher")
	s, _ := v.(string)
	return s
}

func (f claudeFormat) set(root *jsonObject, ev Event, cmd string) bool {
	const host = "claude-code"
	want := &jsonObject{}
	if ev.Matcher != "" {
		want.set("matcher", ev.Matcher)
	}
	entry := &jsonObject{}
	entry.set("type", "command")
	entry.set("command", cmd)
	if ev.Timeout > 0 {
		entry.set("timeout", ev.Timeout)
	}
	want.set("hooks", []any{entry})

	hooks := hooksObject(root, true)
	v, _ := hooks.get(ev.Name)
	groups, _ := v.([]any)
	// Unchanged when the one cgraph entry is already the wanted group.
	var found []any
	for _, g := range groups {
		hs, _ := groupHooks(g)
		for _, h := range hs {
			if isCgraphEntry(h, host, []string{ev.Name}) {
				found = append(found, g)
			}
		}
	}
	if len(found) == 1 && sameJSON(found[0], want) {
		return false
	}
	var out []any
	placed := false
	for _, g := range groups {
		hs, ok := groupHooks(g)
		if !ok {
			out = append(out, g)
			continue
		}
		kept := hs[:0:0]
		for _, h := range hs {
			if !isCgraphEntry(h, host, []string{ev.Name}) {
				kept = append(kept, h)
			}
		}
		if len(kept) < len(hs) && !placed {
			out, placed = append(out, want), true
		}
		if len(kept) == len(hs) {
			out = append(out, g)
		} else if len(kept) > 0 {
			g.(*jsonObject).set("hooks", kept)
			out = append(out, g)
		}
	}
	if !placed {
		out = append(out, want)
	}
	hooks.set(ev.Name, out)
	return true
}

func (claudeFormat) remove(root *jsonObject, host string, names []string) int {
	hooks := hooksObject(root, false)
	if hooks == nil {
		return 0
	}
	n := 0
	for _, m := range append([]jsonMember(nil), hooks.members...) {
		groups, _ := m.val.([]any)
		var out []any
		removedHere := 0
		for _, g := range groups {
			hs, ok := groupHooks(g)
			if !ok {
				out = append(out, g)
				continue
			}
			kept := hs[:0:0]
			for _, h := range hs {
				if !isCgraphEntry(h, host, names) {
					kept = append(kept, h)
				}
			}
			removedHere += len(hs) - len(kept)
			switch {
			case len(kept) == len(hs):
				out = append(out, g)
			case len(kept) > 0:
				g.(*jsonObject).set("hooks", kept)
				out = append(out, g)
			}
		}
		n += removedHere
		switch {
		case removedHere == 0:
		case len(out) == 0:
			hooks.del(m.key)
		default:
			hooks.set(m.key, out)
		}
	}
	if n > 0 && len(hooks.members) == 0 {
		root.del("hooks")
	}
	return n
}

func (claudeFormat) find(root *jsonObject, host string) map[string][]foundHook {
	out := map[string][]foundHook{}
	hooks := hooksObject(root, false)
	if hooks == nil {
		return out
	}
	for _, m := range hooks.members {
		groups, _ := m.val.([]any)
		for _, g := range groups {
			hs, _ := groupHooks(g)
			for _, h := range hs {
				cmd, _ := commandOf(h)
				if c, _, ok := ParseCommand(cmd, host); ok {
					out[m.key] = append(out[m.key], foundHook{Command: cmd, Matcher: groupMatcher(g), Parsed: c})
				}
			}
		}
	}
	return out
}

// cursorFormat: {"version": 1, "hooks": {EVENT: [{"command": C}]}}.
type cursorFormat struct{}

func (cursorFormat) skeleton() *jsonObject {
	o := &jsonObject{}
	o.set("version", 1)
	return o
}

func (cursorFormat) check(root *jsonObject) error {
	if v, ok := root.get("version"); ok && fmt.Sprint(v) != "1" {
		return fmt.Errorf(`"version" is %v; cgraph writes version 1 of Cursor's hooks.json only`, v)
	}
	return checkHooksShape(root)
}

func (cursorFormat) set(root *jsonObject, ev Event, cmd string) bool {
	const host = "cursor"
	want := &jsonObject{}
	want.set("command", cmd)
	if _, ok := root.get("version"); !ok {
		root.members = append([]jsonMember{{"version", 1}}, root.members...)
	}
	hooks := hooksObject(root, true)
	v, _ := hooks.get(ev.Name)
	entries, _ := v.([]any)
	var found []any
	for _, e := range entries {
		if isCgraphEntry(e, host, []string{ev.Name}) {
			found = append(found, e)
		}
	}
	if len(found) == 1 && sameJSON(found[0], want) {
		return false
	}
	var out []any
	placed := false
	for _, e := range entries {
		if !isCgraphEntry(e, host, []string{ev.Name}) {
			out = append(out, e)
		} else if !placed {
			out, placed = append(out, want), true
		}
	}
	if !placed {
		out = append(out, want)
	}
	hooks.set(ev.Name, out)
	return true
}

func (cursorFormat) remove(root *jsonObject, host string, names []string) int {
	hooks := hooksObject(root, false)
	if hooks == nil {
		return 0
	}
	n := 0
	for _, m := range append([]jsonMember(nil), hooks.members...) {
		entries, _ := m.val.([]any)
		var out []any
		for _, e := range entries {
			if !isCgraphEntry(e, host, names) {
				out = append(out, e)
			}
		}
		if removed := len(entries) - len(out); removed > 0 {
			n += removed
			if len(out) == 0 {
				hooks.del(m.key)
			} else {
				hooks.set(m.key, out)
			}
		}
	}
	if n > 0 && len(hooks.members) == 0 {
		root.del("hooks")
	}
	return n
}

func (cursorFormat) find(root *jsonObject, host string) map[string][]foundHook {
	out := map[string][]foundHook{}
	hooks := hooksObject(root, false)
	if hooks == nil {
		return out
	}
	for _, m := range hooks.members {
		entries, _ := m.val.([]any)
		for _, e := range entries {
			cmd, _ := commandOf(e)
			if c, _, ok := ParseCommand(cmd, host); ok {
				out[m.key] = append(out[m.key], foundHook{Command: cmd, Parsed: c})
			}
		}
	}
	return out
}
