package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/cgraph/cgraph/models"
	"github.com/cgraph/cgraph/models/runtime"
)

// passTime is one timed token pass of -pass-at, in Unix seconds.
type passTime struct {
	Model string  `json:"model"`
	Pid   int     `json:"pid"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// passAt is the check across processes (-pass-at): it opens ids on dev,
// warms each up with one token pass over docs, waits until the wall clock
// reaches at (Unix seconds), then runs each model's token pass in turn,
// repeats times, and prints one JSON line per pass. Several processes given
// the same -pass-at run their passes at once; given times far enough apart,
// one after another. Against "models at once" (one process, one goroutine per
// model) it says where the models' runs are serialised: inside one process
// (its sessions, ONNX Runtime, the CUDA context) or on the GPU itself.
func passAt(ctx context.Context, o options, ids []models.ModelID, dev runtime.Device, docs []string, cudaOpts map[string]string) error {
	ms := make([]*runtime.Model, len(ids))
	for i, id := range ids {
		m, err := openModel(o, id, dev, cudaOpts)
		if err != nil {
			return fmt.Errorf("open %s on %s: %w", id, dev, err)
		}
		defer m.Close()
		ms[i] = m
	}
	pass := func(m *runtime.Model) error {
		for start := 0; start < len(docs); start += 512 {
			if _, err := m.EmbedWithTokens(ctx, m.Config().PassagePrefix, docs[start:min(start+512, len(docs))]); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range ms {
		if err := pass(m); err != nil { // warm-up: arenas grown, kernels chosen
			return err
		}
	}
	wait := time.Until(time.Unix(0, int64(o.passAt*1e9)))
	if wait < 0 {
		return fmt.Errorf("-pass-at %.3f is %s in the past once the models are warm: give a later time", o.passAt, -wait)
	}
	time.Sleep(wait)
	enc := json.NewEncoder(os.Stdout)
	for range o.passRepeats {
		for i, m := range ms {
			t := time.Now()
			if err := pass(m); err != nil {
				return err
			}
			if err := enc.Encode(passTime{Model: string(ids[i]), Pid: os.Getpid(), Start: unixOf(t), End: unixOf(time.Now())}); err != nil {
				return err
			}
		}
	}
	return nil
}

func unixOf(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
