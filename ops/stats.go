package ops

import (
	"context"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// StatsStore is what MemoryStats needs of a store; *engine.Engine is one.
type StatsStore interface {
	Tally(ctx context.Context) (engine.Tally, error)
	Stats(ctx context.Context) (record.Stats, error)
}

// MemoryStatsAnswer is the store in figures: the tally (per type and
// project, superseded, uses, audit log), its size on disk (RocksDB's
// estimate over every family) and the maintenance schedule with its last
// run.
type MemoryStatsAnswer struct {
	engine.Tally
	StoreBytes  uint64         `json:"store_bytes"`
	Maintenance ScheduleStatus `json:"maintenance"`
}

// MemoryStats counts the store; sched is the running schedule, nil when
// there is none. Cost: Tally's pass over the records.
func MemoryStats(ctx context.Context, s StatsStore, sched *Schedule) (MemoryStatsAnswer, error) {
	t, err := s.Tally(ctx)
	if err != nil {
		return MemoryStatsAnswer{}, err
	}
	st, err := s.Stats(ctx)
	if err != nil {
		return MemoryStatsAnswer{}, err
	}
	out := MemoryStatsAnswer{Tally: t, Maintenance: sched.Status()}
	for _, f := range st.Families {
		out.StoreBytes += f.Bytes
	}
	return out, nil
}
