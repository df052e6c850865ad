package mcpserver

import (
	"context"
	"fmt"

	"github.com/cgraph/cgraph/ops"
)

// wholeStore refuses a tool that reports on every project (the store's
// counts, maintenance of every memory) on a server pinned to one project:
// its agents must not see other projects' memories or names.
func wholeStore(s *Server, tool string) error {
	if p := s.opts.Project; p != "" {
		return fmt.Errorf("%s covers every project of the store, and this server is pinned to project %q (cgraph mcp --project, or /mcp?project=): use a server without a pinned project", tool, p)
	}
	return nil
}

type memoryStatsIn struct{}

func memoryStats(ctx context.Context, s *Server, _ memoryStatsIn) (any, error) {
	if err := wholeStore(s, "memory_stats"); err != nil {
		return nil, err
	}
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
	if err := wholeStore(s, "maintenance_report"); err != nil {
		return nil, err
	}
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
