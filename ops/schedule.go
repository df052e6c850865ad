package ops

import (
	"context"
	"sync"
	"time"
)

// Schedule runs Maintenance every Every on one writer store and keeps the
// last run's report in RAM for the faces (GET /v1/maintenance, MCP
// maintenance_report, memory_stats). It is safe for concurrent use: Run
// goes in its own goroutine, Status from any.
type Schedule struct {
	store MaintenanceStore
	every time.Duration
	req   MaintenanceRequest
	now   func() time.Time
	log   func(line string)
	cycle bool // each run gets a fresh dutyCycle pause

	mu struct {
		sync.Mutex
		last *MaintenanceReport // nil until the first run ends
		runs int
		next time.Time
	}
}

// ScheduleOptions configure NewSchedule.
type ScheduleOptions struct {
	// Every is the time between the end of a run and the start of the next.
	Every time.Duration
	// Request is each run's request (its Now is set per run; its Pause,
	// when nil, is a fresh dutyCycle per run, yielding to searches).
	Request MaintenanceRequest
	// Clock is the time decay is computed at (nil: time.Now); a test
	// passes a fake one.
	Clock func() time.Time
	// Log gets one line per run (nil: none).
	Log func(line string)
}

// YieldPause is the shortest sleep a scheduled run takes between pages of
// 1,000 memories and between actions (dutyCycle).
const YieldPause = 2 * time.Millisecond

// dutyCycle returns a Pause that sleeps as long as the run worked since
// the last pause (at least YieldPause): a scheduled run holds a core at
// most half the time, so that searches on the same engine keep their speed
// on a small machine, at the cost of a run taking about twice as long.
// Each run needs its own; it is for one goroutine (the run).
func dutyCycle() func() {
	last := time.Now()
	return func() {
		time.Sleep(max(YieldPause, time.Since(last)))
		last = time.Now()
	}
}

// NewSchedule prepares a schedule; Run starts it.
func NewSchedule(s MaintenanceStore, o ScheduleOptions) *Schedule {
	sc := &Schedule{store: s, every: o.Every, req: o.Request, now: o.Clock, log: o.Log}
	if sc.now == nil {
		sc.now = time.Now
	}
	sc.cycle = sc.req.Pause == nil
	if sc.req.By == "" {
		sc.req.By = "schedule"
	}
	return sc
}

// Run runs maintenance every Every until ctx ends; the first run starts
// one interval after Run is called.
func (sc *Schedule) Run(ctx context.Context) {
	t := time.NewTimer(sc.every)
	defer t.Stop()
	sc.setNext(time.Now().Add(sc.every))
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sc.RunOnce(ctx)
		sc.setNext(time.Now().Add(sc.every))
		t.Reset(sc.every)
	}
}

func (sc *Schedule) setNext(at time.Time) {
	sc.mu.Lock()
	sc.mu.next = at
	sc.mu.Unlock()
}

// RunOnce runs maintenance now, as the timer does, logs the one-line
// summary and keeps the report.
func (sc *Schedule) RunOnce(ctx context.Context) MaintenanceReport {
	req := sc.req
	req.Now = sc.now()
	if sc.cycle {
		req.Pause = dutyCycle()
	}
	rep, _ := Maintenance(ctx, sc.store, req) // the error is in the report
	if sc.log != nil {
		sc.log(rep.Summary())
	}
	sc.mu.Lock()
	sc.mu.last = &rep
	sc.mu.runs++
	sc.mu.Unlock()
	return rep
}

// ScheduleStatus is what the faces report of a schedule.
type ScheduleStatus struct {
	Scheduled bool               `json:"scheduled"`
	EveryS    float64            `json:"every_s,omitempty"`
	Apply     bool               `json:"apply"`
	Policy    *Policy            `json:"policy,omitempty"`
	Runs      int                `json:"runs"`
	Next      time.Time          `json:"next,omitzero"`
	Last      *MaintenanceReport `json:"last,omitempty"`
}

// Status returns the schedule and its last report. A nil *Schedule (serve
// without --maintain-every) reports scheduled false.
func (sc *Schedule) Status() ScheduleStatus {
	if sc == nil {
		return ScheduleStatus{}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	p := sc.req.Policy
	st := ScheduleStatus{Scheduled: true, EveryS: sc.every.Seconds(), Apply: sc.req.Apply, Policy: &p, Runs: sc.mu.runs, Next: sc.mu.next}
	if sc.mu.last != nil {
		last := *sc.mu.last
		st.Last = &last
	}
	return st
}
