package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/cgraph/cgraph/record"
)

// nearPair is a near-duplicate pair Maintain found with Consolidate: older
// was created before newer, in the same project; why is the evidence
// (E1/E6/E11 against the thresholds).
type nearPair struct {
	older, newer record.ID
	why          string
}

// nearPairs returns a pair for each stored memory of m's project created
// before m that is a near-duplicate of it (olderNear) and not listed in
// acted, and records both memories in members. It proposes nothing.
func (s *Engine) nearPairs(ctx context.Context, m record.Memory, acted map[record.ID]bool, members map[record.ID]record.Memory) ([]nearPair, error) {
	older, err := s.olderNear(ctx, m)
	if err != nil {
		return nil, err
	}
	var out []nearPair
	for _, o := range older {
		if acted[o.ID] {
			continue
		}
		members[m.ID], members[o.ID] = m, o.Memory
		out = append(out, nearPair{older: o.ID, newer: m.ID, why: o.why})
	}
	return out, nil
}

// consolidations turns the near-duplicate pairs into consolidate actions:
// the pairs' connected components (pairs touching a memory listed for
// prune or merge are left out) each keep their newest memory (creation
// time, then id) and fold every older member into it — but never one of a
// protected type unless o.Types names it, nor one used within its
// half-life (they stay, and still count as members). Each action's reason
// names the cluster and the evidence of a pair the member is in,
// preferring its pair with the survivor.
func consolidations(pairs []nearPair, members map[record.ID]record.Memory, acted map[record.ID]bool, o MaintainOptions) []MaintainAction {
	parent := map[record.ID]record.ID{}
	var find func(record.ID) record.ID
	find = func(x record.ID) record.ID {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	pairs = slices.DeleteFunc(pairs, func(p nearPair) bool { return acted[p.older] || acted[p.newer] })
	for _, p := range pairs {
		if a, b := find(p.older), find(p.newer); a != b {
			parent[a] = b
		}
	}
	clusters := map[record.ID][]record.Memory{}
	for _, p := range pairs {
		for _, id := range []record.ID{p.older, p.newer} {
			r := find(id)
			if !slices.ContainsFunc(clusters[r], func(m record.Memory) bool { return m.ID == id }) {
				clusters[r] = append(clusters[r], members[id])
			}
		}
	}
	roots := make([]record.ID, 0, len(clusters))
	for r := range clusters {
		roots = append(roots, r)
	}
	slices.SortFunc(roots, func(a, b record.ID) int { return bytes.Compare(a[:], b[:]) })
	var out []MaintainAction
	for _, r := range roots {
		c := clusters[r]
		slices.SortFunc(c, func(a, b record.Memory) int {
			if x := a.CreatedAt.Compare(b.CreatedAt); x != 0 {
				return x
			}
			return bytes.Compare(a.ID[:], b.ID[:])
		})
		keep := c[len(c)-1]
		for _, m := range c[:len(c)-1] {
			d := DecayOf(m, o.Now)
			if !o.prunable(m.Type) || d.IdleDays < d.HalfLife {
				continue
			}
			why := ""
			for _, p := range pairs {
				if p.older == m.ID || p.newer == m.ID {
					other := p.newer
					if other == m.ID {
						other = p.older
					}
					if why == "" || other == keep.ID {
						why = fmt.Sprintf("%s (with %s)", p.why, other)
					}
				}
			}
			out = append(out, MaintainAction{Action: "consolidate", ID: m.ID, Keep: keep.ID, faded: true,
				Reason: fmt.Sprintf("one of %d near-duplicates in project %q, folded into the newest: %s", len(c), m.Project, why)})
		}
	}
	return out
}
