package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// Capture never runs in the agent's time. A Stop, PreCompact or SessionEnd
// hook writes one queue entry (the store, the transcript, the project) into
// the state directory and starts `cgraph hook claude-code drain` as a
// detached process; the drain ingests every queued transcript of the store
// (ops.Ingest: incremental from the transcript's cursor, idempotent by line
// uuid) through a running cgraph serve when there is one, else by opening
// the store, and removes each entry once it is ingested. A store held by
// another writer leaves its entries queued: the next hook's drain, or
// `cgraph hook claude-code drain`, finishes them. The queue lives outside
// the store directory, which holds only the store's own files.

// captureEntry is one queued transcript.
type captureEntry struct {
	DB      string `json:"db"`
	Host    string `json:"host"`
	Path    string `json:"path"`
	Project string `json:"project"`
	Final   bool   `json:"final"`
}

// captureQueueDir is where the queue entries of every store live.
func captureQueueDir() string { return filepath.Join(hookStateDir(), "capture-queue") }

// hookCapture queues the event's transcript and starts a drain.
func (a *App) hookCapture(ev hookInput, project string, final bool) error {
	if ev.TranscriptPath == "" {
		return nil
	}
	path, err := filepath.Abs(ev.TranscriptPath)
	if err != nil {
		return err
	}
	db, err := filepath.Abs(a.DBDir)
	if err != nil {
		return err
	}
	if err := queueCapture(captureEntry{DB: db, Host: "claude-code", Path: path, Project: project, Final: final}); err != nil {
		return err
	}
	if os.Getenv("CGRAPH_HOOK_NO_DRAIN") != "" {
		return nil // tests drain themselves
	}
	return startDrain(db)
}

// queueCapture writes e, keyed by store and transcript: a later event of
// the same session replaces an earlier one (a final one stays final).
func queueCapture(e captureEntry) error {
	dir := captureQueueDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(e.DB + "\x00" + e.Path))
	path := filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
	if old, err := os.ReadFile(path); err == nil {
		var prev captureEntry
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

// startDrain starts `cgraph --db DB hook claude-code drain` in its own
// session, detached from the agent's: it outlives the hook and its output
// goes nowhere (errors go to the hooks log).
func startDrain(db string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "--db", db, "hook", "claude-code", "drain")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the capture drain: %w", err)
	}
	return cmd.Process.Release()
}

// drainCaptures ingests every queued transcript of this store and removes
// the entries done; it stops at the first failure (the entries stay).
func (a *App) drainCaptures(cmd *cobra.Command) error {
	db, err := filepath.Abs(a.DBDir)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(captureQueueDir(), "*.json"))
	if err != nil {
		return err
	}
	var todo []string
	for _, f := range files {
		var e captureEntry
		if raw, err := os.ReadFile(f); err != nil || json.Unmarshal(raw, &e) != nil || e.DB != db {
			continue
		}
		todo = append(todo, f)
	}
	if len(todo) == 0 {
		return nil
	}
	ingest, done, err := a.ingester(cmd)
	if err != nil {
		return err
	}
	defer done()
	for _, f := range todo {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // another drain took it
		}
		var e captureEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			_ = os.Remove(f) // a damaged entry would never drain
			continue
		}
		rep, err := ingest(ops.IngestRequest{Host: e.Host, Path: e.Path, Project: e.Project, Final: e.Final})
		if err != nil {
			return fmt.Errorf("ingest %s: %w", e.Path, err)
		}
		if cur, err := os.ReadFile(f); err == nil && string(cur) == string(raw) {
			_ = os.Remove(f) // a newer event of the session re-queued it otherwise
		}
		if rep.Stored > 0 {
			hookLogf("claude-code capture: %s: %d memories stored (%d turns read)", e.Path, rep.Stored, rep.Turns)
		}
	}
	return nil
}

// ingester ingests through the server when one answers, else through the
// store opened for writing here (ErrStoreInUse when another writer has it).
func (a *App) ingester(cmd *cobra.Command) (func(ops.IngestRequest) (ops.IngestReport, error), func(), error) {
	if srv, ok := a.server(cmd); ok {
		probe := func(r ops.IngestRequest) (ops.IngestReport, error) {
			var rep ops.IngestReport
			err := srv.post(a.Context(), "/v1/ingest", r, &rep)
			return rep, err
		}
		return probe, func() {}, nil
	}
	// Turns are stored with the model-free slots (found by keyword search
	// at once) and every model slot is filled before the drain exits.
	s, err := a.openStore(storeOpen{write: true, deferAll: true, manualFill: true})
	var inUse *record.StoreInUseError
	if errors.As(err, &inUse) {
		return nil, nil, fmt.Errorf("the store is in use by process %d and no cgraph serve answers: the transcripts stay queued", inUse.PID)
	}
	if err != nil {
		return nil, nil, err
	}
	done := func() {
		if err := a.fillPending(s); err != nil {
			hookLogf("claude-code capture: fill the model slots: %v (the next writer resumes it)", err)
		}
		var cerr error
		a.closeStore(s, &cerr)
		if cerr != nil {
			hookLogf("claude-code capture: %v", cerr)
		}
	}
	return func(r ops.IngestRequest) (ops.IngestReport, error) { return ops.Ingest(a.Context(), s, r) }, done, nil
}

// isCaptureDrain reports whether an event names the drain.
func isCaptureDrain(event string) bool { return strings.EqualFold(event, "drain") }
