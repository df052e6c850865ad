package hookscmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cgraph/cgraph/capture/queue"
	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/hooks"
	"github.com/cgraph/cgraph/hookstate"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

// captureQueue is the capture queue (capture/queue) of every store, in
// the hooks' state directory.
func captureQueue() queue.Queue {
	return queue.Queue{Dir: filepath.Join(hookstate.Dir(), "capture-queue")}
}

// hookCapture queues the event's transcript and starts a drain.
func hookCapture(a *app.App, ev hooks.Input, project string, final bool) error {
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
	if err := captureQueue().Add(queue.Entry{DB: db, Host: "claude-code", Path: path, Project: project, Final: final}); err != nil {
		return err
	}
	if os.Getenv("CGRAPH_HOOK_NO_DRAIN") != "" {
		return nil // tests drain themselves
	}
	return startDrain(db)
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
// Capture never runs in the agent's time: the hook only queues (capture/queue).
func drainCaptures(a *app.App, cmd *cobra.Command) error {
	db, err := filepath.Abs(a.DBDir)
	if err != nil {
		return err
	}
	todo, err := captureQueue().Pending(db)
	if err != nil || len(todo) == 0 {
		return err
	}
	ingest, done, err := ingester(a, cmd)
	if err != nil {
		return err
	}
	defer done()
	return queue.Drain(todo, func(e queue.Entry) error {
		rep, err := ingest(ops.IngestRequest{Host: e.Host, Path: e.Path, Project: e.Project, Final: e.Final})
		if err == nil && rep.Stored > 0 {
			hookstate.Logf("claude-code capture: %s: %d memories stored (%d turns read)", e.Path, rep.Stored, rep.Turns)
		}
		return err
	})
}

// ingester ingests through the server when one answers, else through the
// store opened for writing here (ErrStoreInUse when another writer has it).
func ingester(a *app.App, cmd *cobra.Command) (func(ops.IngestRequest) (ops.IngestReport, error), func(), error) {
	if srv, ok := a.Server(cmd); ok {
		probe := func(r ops.IngestRequest) (ops.IngestReport, error) {
			var rep ops.IngestReport
			err := srv.Post(a.Context(), "/v1/ingest", r, &rep)
			return rep, err
		}
		return probe, func() {}, nil
	}
	// Turns are stored with the model-free slots (found by keyword search
	// at once) and every model slot is filled before the drain exits.
	s, err := a.Open(app.StoreOpen{Write: true, DeferAll: true, ManualFill: true})
	var inUse *record.StoreInUseError
	if errors.As(err, &inUse) {
		return nil, nil, fmt.Errorf("the store is in use by process %d and no cgraph serve answers: the transcripts stay queued", inUse.PID)
	}
	if err != nil {
		return nil, nil, err
	}
	done := func() {
		if err := a.FillPending(s); err != nil {
			hookstate.Logf("claude-code capture: fill the model slots: %v (the next writer resumes it)", err)
		}
		var cerr error
		a.CloseStore(s, &cerr)
		if cerr != nil {
			hookstate.Logf("claude-code capture: %v", cerr)
		}
	}
	return func(r ops.IngestRequest) (ops.IngestReport, error) { return ops.Ingest(a.Context(), s, r) }, done, nil
}

// isCaptureDrain reports whether an event names the drain.
func isCaptureDrain(event string) bool { return strings.EqualFold(event, "drain") }
