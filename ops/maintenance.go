package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	yaml "go.yaml.in/yaml/v3"

	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/record"
)

// Policy says what a maintenance run may carry out when it applies: which
// kinds of action, the faded-importance threshold of prune, which types
// prune may retire, and how many actions one run may take. It is read from
// a policy file (LoadPolicy); DefaultPolicy is what a run without one
// uses. Decisions and preferences are retired only when Types names them.
type Policy struct {
	// Actions are the kinds a run may apply: merge_duplicate, supersede,
	// prune, consolidate. The others are still listed in the report, held.
	// consolidate is opt-in (only when named, and it needs Near): each
	// near-duplicate cluster of a project is folded into its newest memory
	// instead of linked by supersede (engine.MaintainOptions.Consolidate).
	Actions []string `json:"actions" toml:"actions" yaml:"actions"`
	// PruneBelow is the effective importance under which an idle memory
	// is listed for pruning (0: only superseded memories are).
	PruneBelow float64 `json:"prune_below" toml:"prune_below" yaml:"prune_below"`
	// Types are the memory types prune may retire (empty: every type but
	// decision and preference).
	Types []record.Type `json:"types,omitempty" toml:"types" yaml:"types"`
	// MaxActions bounds the actions one run applies.
	MaxActions int `json:"max_actions" toml:"max_actions" yaml:"max_actions"`
	// Near looks for near-duplicates (supersede): one similarity search
	// per memory, which needs the models and is the costly part of a run.
	Near bool `json:"near" toml:"near" yaml:"near"`
}

// DefaultPolicy is the policy of a run without a policy file: exact
// copies merged and superseded memories pruned, nothing retired for
// fading alone, at most 100 actions a run, no near-duplicate search.
func DefaultPolicy() Policy {
	return Policy{Actions: []string{"merge_duplicate", "prune"}, MaxActions: 100}
}

// policyKeys are the keys a policy file may hold.
const policyKeys = "actions, prune_below, types, max_actions, near"

// MaxPolicyFileBytes bounds a policy file.
const MaxPolicyFileBytes = 64 << 10

// LoadPolicy reads a policy file: TOML (.toml) or YAML (.yaml, .yml), as
// profile files are read. Keys missing from the file keep DefaultPolicy's
// values. A bad key or value is a *record.ValidationError naming the key
// and the fix.
func LoadPolicy(path string) (Policy, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Policy{}, fmt.Errorf("open policy file: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxPolicyFileBytes+1))
	if cerr := fh.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return Policy{}, fmt.Errorf("read policy file %s: %w", path, err)
	}
	if len(data) > MaxPolicyFileBytes {
		return Policy{}, &record.ValidationError{Field: "policy", Problem: fmt.Sprintf("%s is over %d bytes", path, MaxPolicyFileBytes), Fix: "a policy is five keys: " + policyKeys}
	}
	p, err := DecodePolicy(data, strings.ToLower(filepath.Ext(path)))
	if err != nil {
		return Policy{}, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}

// DecodePolicy parses a policy in the format of ext (".toml", ".yaml" or
// ".yml") over DefaultPolicy and validates it.
func DecodePolicy(data []byte, ext string) (Policy, error) {
	p := DefaultPolicy()
	switch ext {
	case ".toml":
		md, err := toml.Decode(string(data), &p)
		if err != nil {
			return Policy{}, &record.ValidationError{Field: "policy", Problem: fmt.Sprintf("parse TOML: %v", err), Fix: "write key = value lines with the keys " + policyKeys}
		}
		if und := md.Undecoded(); len(und) > 0 {
			return Policy{}, &record.ValidationError{Field: und[0].String(), Problem: "is not a policy key", Fix: "use the keys " + policyKeys}
		}
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
			return Policy{}, &record.ValidationError{Field: "policy", Problem: fmt.Sprintf("parse YAML: %v", err), Fix: "use the keys " + policyKeys}
		}
	default:
		return Policy{}, &record.ValidationError{Field: "policy", Problem: fmt.Sprintf("file type %q is neither TOML nor YAML", ext), Fix: "name the file *.toml, *.yaml or *.yml"}
	}
	return p, p.Validate()
}

// Validate checks every key, naming the first bad one.
func (p Policy) Validate() error {
	for _, a := range p.Actions {
		if !slices.Contains(engine.MaintainActionKinds, a) {
			return &record.ValidationError{Field: "actions", Problem: fmt.Sprintf("%q is not an action", a), Fix: "list some of " + strings.Join(engine.MaintainActionKinds, ", ")}
		}
	}
	if slices.Contains(p.Actions, "consolidate") && !p.Near {
		return &record.ValidationError{Field: "near", Problem: "actions names consolidate but near is false",
			Fix: "add near: true (consolidate folds the near-duplicates that near finds), or drop consolidate from actions"}
	}
	if math.IsNaN(p.PruneBelow) || p.PruneBelow < 0 || p.PruneBelow > 1 {
		return &record.ValidationError{Field: "prune_below", Problem: fmt.Sprintf("%v is outside [0, 1]", p.PruneBelow), Fix: "give an effective importance from 0 to 1, such as 0.05 (0: prune superseded memories only)"}
	}
	for _, t := range p.Types {
		if !t.Known() {
			return &record.ValidationError{Field: "types", Problem: fmt.Sprintf("%q is not a memory type", t), Fix: fmt.Sprintf("list some of %v", record.Types())}
		}
	}
	if p.MaxActions < 1 || p.MaxActions > 100000 {
		return &record.ValidationError{Field: "max_actions", Problem: fmt.Sprintf("%d is outside 1–100000", p.MaxActions), Fix: "give how many actions one run may apply, such as 100"}
	}
	return nil
}

// MaintenanceStore is what Maintenance needs of a store; *engine.Engine
// is one.
type MaintenanceStore interface {
	Maintain(ctx context.Context, o engine.MaintainOptions) ([]engine.MaintainAction, error)
}

// MaintenanceRequest asks for one maintenance run.
type MaintenanceRequest struct {
	Policy Policy
	// Apply carries out what the policy allows; without it the run lists
	// what it would do and writes nothing.
	Apply bool
	// By names the run in the audit log ("schedule", "maintain").
	By string
	// Now is when decay is computed (zero: now).
	Now time.Time
	// Pause is called between pages of memories and between actions (a
	// scheduled run yields to searches there); nil: no pause.
	Pause func()
}

// MaintenanceReport is one run: when, how long, under which policy, and
// every action with its evidence, applied or not (and why not).
type MaintenanceReport struct {
	Started    time.Time               `json:"started"`
	DurationMS float64                 `json:"duration_ms"`
	Apply      bool                    `json:"apply"`
	Policy     Policy                  `json:"policy"`
	Actions    []engine.MaintainAction `json:"actions"`
	Applied    int                     `json:"applied"`
	Error      string                  `json:"error,omitempty"`
}

// Summary is the report in one line, for a log.
func (r MaintenanceReport) Summary() string {
	mode := "dry run"
	if r.Apply {
		mode = "apply"
	}
	kinds := map[string]int{}
	for _, a := range r.Actions {
		kinds[a.Action]++
	}
	var parts []string
	for _, k := range engine.MaintainActionKinds {
		if kinds[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
		}
	}
	found := "nothing found"
	if len(parts) > 0 {
		found = strings.Join(parts, ", ")
	}
	line := fmt.Sprintf("maintenance (%s) at %s took %.0f ms: %s; %d applied", mode, r.Started.Format(time.RFC3339), r.DurationMS, found, r.Applied)
	if r.Error != "" {
		line += "; error: " + r.Error
	}
	return line
}

// Maintenance runs maintenance once under r.Policy: it lists exact copies,
// superseded and faded memories (and near-duplicates when the policy says
// near) and, with r.Apply, carries out what the policy allows, each action
// in its own atomic batch with its audit entry. The report comes back with
// the error, too, so that a failed run still says what it did.
func Maintenance(ctx context.Context, s MaintenanceStore, r MaintenanceRequest) (MaintenanceReport, error) {
	if err := r.Policy.Validate(); err != nil {
		return MaintenanceReport{}, err
	}
	if r.Now.IsZero() {
		r.Now = time.Now()
	}
	rep := MaintenanceReport{Started: r.Now.UTC(), Apply: r.Apply, Policy: r.Policy}
	t0 := time.Now()
	acts, err := s.Maintain(ctx, engine.MaintainOptions{PruneBelow: r.Policy.PruneBelow, Apply: r.Apply, Now: r.Now, Near: r.Policy.Near,
		Types: r.Policy.Types, Actions: r.Policy.Actions, MaxActions: r.Policy.MaxActions, By: r.By, Pause: r.Pause})
	rep.DurationMS = float64(time.Since(t0).Microseconds()) / 1000
	rep.Actions = acts
	if rep.Actions == nil {
		rep.Actions = []engine.MaintainAction{}
	}
	for _, a := range acts {
		if a.Applied {
			rep.Applied++
		}
	}
	if err != nil {
		rep.Error = err.Error()
	}
	return rep, err
}
