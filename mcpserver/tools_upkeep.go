package mcpserver

import (
	"context"

	"github.com/cgraph/cgraph/ops"
)

type memoryStatsIn struct{}

func memoryStats(ctx context.Context, s *Server, _ memoryStatsIn) (any, error) {
	return ops.MemoryStats(ctx, s.store, s.opts.Maintenance)
}

type maintenanceReportIn struct {
	DryRun bool `json:"dry_run,omitempty" jsonschema:"also run maintenance now as a dry run (writes nothing) under the schedule's policy, or the default one"`
}

// maintenanceReportOut is the schedule with its last run, and the dry run
// asked for.
type maintenanceReportOut struct {
	ops.ScheduleStatus
	DryRun *ops.MaintenanceReport `json:"dry_run,omitempty"`
}

func maintenanceReport(ctx context.Context, s *Server, in maintenanceReportIn) (any, error) {
	st := s.opts.Maintenance.Status()
	out := maintenanceReportOut{ScheduleStatus: st}
	if in.DryRun {
		p := ops.DefaultPolicy()
		if st.Policy != nil {
			p = *st.Policy
		}
		rep, err := ops.Maintenance(ctx, s.store, ops.MaintenanceRequest{Policy: p})
		if err != nil {
			return nil, err
		}
		out.DryRun = &rep
	}
	return out, nil
}
