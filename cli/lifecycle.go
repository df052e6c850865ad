package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cgraph/cgraph/cli/app"
	"github.com/cgraph/cgraph/engine"
	"github.com/cgraph/cgraph/ops"
	"github.com/cgraph/cgraph/record"
)

func init() {
	app.Register(newUpdateCmd)
	app.Register(newLinkCmd)
	app.Register(newUnlinkCmd)
	app.Register(newRelatedCmd)
}

// filterFlags are the search filter flags as given (search, context).
type filterFlags struct {
	types, tagsAny, tagsAll, meta []string
	inSession, source             string
	createdAfter, createdBefore   string
	updatedAfter, updatedBefore   string
	minImportance                 float64
	superseded, asOf              string
	allProjects                   bool
}

func (f *filterFlags) bind(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.types, "type", nil, "keep memories of this type (repeat for any of several): "+typeList())
	fl.StringArrayVar(&f.tagsAny, "tag", nil, "keep memories with this tag (repeat: any of them)")
	fl.StringArrayVar(&f.tagsAll, "tag-all", nil, "keep memories with every one of these tags (repeat)")
	fl.StringVar(&f.inSession, "in-session", "", "keep memories of this session")
	fl.StringVar(&f.source, "source", "", "keep memories of this source")
	fl.StringVar(&f.createdAfter, "created-after", "", "keep memories created at or after: RFC 3339, or an age such as 7d, 36h, 2w")
	fl.StringVar(&f.createdBefore, "created-before", "", "keep memories created before: RFC 3339 or an age")
	fl.StringVar(&f.updatedAfter, "updated-after", "", "keep memories updated at or after: RFC 3339 or an age")
	fl.StringVar(&f.updatedBefore, "updated-before", "", "keep memories updated before: RFC 3339 or an age")
	fl.Float64Var(&f.minImportance, "min-importance", 0, "keep memories of at least this importance (0 to 1)")
	fl.StringArrayVar(&f.meta, "meta", nil, "keep memories whose metadata has key=value (repeat: all of them)")
	fl.StringVar(&f.superseded, "superseded", "exclude", "superseded memories: exclude, include (marked) or only")
	fl.StringVar(&f.asOf, "as-of", "", "answer as the store knew it then: memories created by then and still valid then (not superseded by then), each with its content of that time; RFC 3339, a date (its end, UTC) or an age such as 30d")
	fl.BoolVar(&f.allProjects, "all-projects", false, "search every project, not only --project")
}

// filter parses the flags; project is the command's project (--project).
func (f filterFlags) filter(project string, now time.Time) (record.Filter, error) {
	out := record.Filter{Project: project, AllProjects: f.allProjects, TagsAny: f.tagsAny, TagsAll: f.tagsAll, Session: f.inSession,
		Source: f.source, MinImportance: f.minImportance}
	for _, t := range f.types {
		typ, err := record.ParseType(t)
		if err != nil {
			return out, &app.UsageError{Problem: fmt.Sprintf("--type: unknown type %q", t), Fix: "use one of " + typeList()}
		}
		out.Types = append(out.Types, typ)
	}
	for _, w := range []struct {
		flag, v string
		dst     *time.Time
	}{{"created-after", f.createdAfter, &out.CreatedAfter}, {"created-before", f.createdBefore, &out.CreatedBefore},
		{"updated-after", f.updatedAfter, &out.UpdatedAfter}, {"updated-before", f.updatedBefore, &out.UpdatedBefore}} {
		if w.v == "" {
			continue
		}
		t, err := record.ParseWhen(w.v, now)
		if err != nil {
			return out, app.Usagef("give an RFC 3339 time (2026-01-02T15:04:05Z) or an age (30m, 36h, 7d, 2w)", "--%s %q: %v", w.flag, w.v, err)
		}
		*w.dst = t
	}
	meta, err := record.ParseMeta(f.meta)
	if err != nil {
		return out, &app.UsageError{Problem: "--meta: " + err.Error(), Fix: "write --meta key=value"}
	}
	out.Meta = meta
	if out.Superseded, err = record.ParseSuperseded(f.superseded); err != nil {
		return out, &app.UsageError{Problem: "--superseded: " + err.Error(), Fix: "use exclude, include or only"}
	}
	if f.asOf != "" {
		if out.AsOf, err = record.ParseAsOf(f.asOf); err != nil {
			at, aerr := record.ParseWhen(f.asOf, now)
			if aerr != nil {
				return out, app.Usagef("give an RFC 3339 time (2026-01-02T15:04:05Z), a date (2026-01-02: its end, UTC) or an age (30d, 2w)", "--as-of %q: %v", f.asOf, err)
			}
			out.AsOf = at.UTC()
		}
	}
	if err := out.Validate(); err != nil {
		return out, err
	}
	return out, nil
}

// changeFlags are update's flags.
type changeFlags struct {
	content, file, typ, project string
	tags, untags, meta, unset   []string
	importance                  float64
}

func newUpdateCmd(a *app.App) *cobra.Command {
	var f changeFlags
	cmd := &cobra.Command{
		Use:   "update ID",
		Short: "Change a memory in place: content, type, tags, importance, project or metadata",
		Long: `update changes the memory ID in one atomic write and prints it. The id stays; the
revision goes up by one and the previous version is kept (cgraph get ID --history).
New content (--content TEXT, --file F, or --content - for stdin) is fingerprinted again
with this store's models; the other changes rewrite the record only and load no model.
A change that leaves the memory as it was writes nothing.`,
		Example: `  cgraph update 01a2f3c4 --content "Decision: pin grocksdb v1.8.0" --tag storage
  cgraph update 01a2f3c4 --untag draft --meta ticket=CG-12 --importance 0.9`,
		Args:              app.ExactArgs(1, "the memory id (or a unique suffix or prefix of 8 or more hex digits)"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			c, err := changeFromFlags(a, cmd, f)
			if err != nil {
				return err
			}
			var e *engine.Engine
			if c.Content != nil {
				e, err = a.OpenStore(true)
			} else {
				e, err = a.OpenRecords(true)
			}
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			id, err := e.ResolveID(a.Context(), args[0])
			if err != nil {
				return err
			}
			res, err := e.Update(a.Context(), id, c)
			if err != nil {
				return fmt.Errorf("update memory %s: %w", id, err)
			}
			if a.JSON {
				return a.PrintJSON(struct {
					memoryJSON
					Changed    bool `json:"changed"`
					Reembedded bool `json:"reembedded"`
				}{toJSON(res.Memory), res.Changed, res.Reembedded})
			}
			switch {
			case !res.Changed:
				a.Warnf("memory %s already was like that: nothing written (revision %d)", id, res.Memory.Revision)
			case res.Reembedded:
				a.Warnf("memory %s: revision %d, fingerprint computed again", id, res.Memory.Revision)
			default:
				a.Warnf("memory %s: revision %d", id, res.Memory.Revision)
			}
			printMemory(a, res.Memory)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.content, "content", "", "the new content (- reads stdin)")
	fl.StringVar(&f.file, "file", "", "read the new content from this file")
	fl.StringVar(&f.typ, "type", "", "the new type: "+typeList())
	fl.StringArrayVar(&f.tags, "tag", nil, "add a tag (repeat)")
	fl.StringArrayVar(&f.untags, "untag", nil, "remove a tag (repeat)")
	fl.Float64Var(&f.importance, "importance", 0, "the new importance, 0 to 1")
	fl.StringArrayVar(&f.meta, "meta", nil, "set metadata key=value (repeat)")
	fl.StringArrayVar(&f.unset, "unset-meta", nil, "remove a metadata key (repeat)")
	fl.StringVar(&f.project, "move-to-project", "", "move the memory to this project")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(typeNames(), cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
	return cmd
}

// changeFromFlags builds the change update's flags describe.
func changeFromFlags(a *app.App, cmd *cobra.Command, f changeFlags) (record.Change, error) {
	var c record.Change
	fl := cmd.Flags()
	switch {
	case fl.Changed("content") && fl.Changed("file"):
		return c, app.Usagef("give one of them", "update got both --content and --file")
	case fl.Changed("file"):
		b, err := os.ReadFile(f.file)
		if err != nil {
			return c, &app.UsageError{Problem: fmt.Sprintf("--file: %v", err), Fix: "give a readable file"}
		}
		s := strings.TrimSuffix(string(b), "\n")
		c.Content = &s
	case fl.Changed("content") && f.content == "-":
		stdinHint(a)
		if a.MaxContentBytes <= 0 {
			a.MaxContentBytes = record.DefaultMaxContentBytes
		}
		s, err := readLimited(a, a.Stdin, "stdin")
		if err != nil {
			return c, err
		}
		c.Content = &s
	case fl.Changed("content"):
		c.Content = &f.content
	}
	if f.typ != "" {
		t, err := record.ParseType(f.typ)
		if err != nil {
			return c, err
		}
		c.Type = &t
	}
	if fl.Changed("importance") {
		if err := record.CheckImportance(f.importance); err != nil {
			return c, err
		}
		c.Importance = &f.importance
	}
	if fl.Changed("move-to-project") {
		c.Project = &f.project
	}
	c.AddTags, c.RemoveTags, c.UnsetMeta = f.tags, f.untags, f.unset
	meta, err := record.ParseMeta(f.meta)
	if err != nil {
		return c, &app.UsageError{Problem: "--meta: " + err.Error(), Fix: "write --meta key=value"}
	}
	c.SetMeta = meta
	if c.Empty() {
		return c, app.Usagef("give --content, --file, --type, --tag, --untag, --importance, --meta, --unset-meta or --move-to-project", "update needs something to change")
	}
	return c, nil
}

// relationFlags are link's and unlink's flags.
type relationFlags struct {
	typ    string
	weight float64
}

// openPair parses --type, opens the store for writing (records only) and
// resolves FROM and TO: what link and unlink share. The caller closes e.
func openPair(a *app.App, f relationFlags, args []string) (e *engine.Engine, from, to record.ID, t record.RelationType, err error) {
	if t, err = record.ParseRelationType(f.typ); err != nil {
		return nil, from, to, t, &app.UsageError{Problem: fmt.Sprintf("--type: unknown relation type %q", f.typ), Fix: "use one of " + record.RelationTypeNames()}
	}
	if e, err = a.OpenRecords(true); err != nil {
		return nil, from, to, t, err
	}
	if from, err = e.ResolveID(a.Context(), args[0]); err == nil {
		to, err = e.ResolveID(a.Context(), args[1])
	}
	if err != nil {
		return nil, from, to, t, errors.Join(err, e.Close())
	}
	return e, from, to, t, nil
}

// bindRelationType defines the required --type flag of link and unlink.
func bindRelationType(cmd *cobra.Command, typ *string) {
	cmd.Flags().StringVar(typ, "type", "", "relation type: "+record.RelationTypeNames())
	_ = cmd.MarkFlagRequired("type")                                                                                            // fails only for an unknown flag
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(relationTypeNames(), cobra.ShellCompDirectiveNoFileComp)) // fails only for an unknown flag
}

func relationTypeNames() []string { return strings.Split(record.RelationTypeNames(), ", ") }

func newLinkCmd(a *app.App) *cobra.Command {
	var f relationFlags
	cmd := &cobra.Command{
		Use:   "link FROM TO --type TYPE",
		Short: "Relate two memories: FROM causes, fixes, supersedes … TO",
		Long: `link stores a typed relation FROM → TO, read "FROM <type> TO" (a fix fixes an error;
a new decision supersedes the old one). Types: ` + record.RelationTypeNames() + `.
The relation is stored in both directions in one write and deleted with either memory.
A superseded memory is left out of searches unless --superseded include (or only) is
given. Linking the same pair with the same type again replaces its weight.`,
		Example: `  cgraph link 01a2f3c4 01a2e111 --type fixes
  cgraph link NEW OLD --type supersedes`,
		Args:              app.ExactArgs(2, "FROM and TO memory ids"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := record.CheckWeight(f.weight); err != nil {
				return err
			}
			e, from, to, t, err := openPair(a, f, args)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			r, err := e.Link(a.Context(), record.Relation{From: from, To: to, Type: t, Weight: f.weight})
			if err != nil {
				return fmt.Errorf("link: %w", err)
			}
			if a.JSON {
				return a.PrintJSON(r)
			}
			a.Printf("%s %s %s (weight %g)\n", r.From, r.Type, r.To, r.Weight)
			return nil
		},
	}
	bindRelationType(cmd, &f.typ)
	cmd.Flags().Float64Var(&f.weight, "weight", record.DefaultRelationWeight, "how sure the relation is, above 0 and at most 1")
	return cmd
}

func newUnlinkCmd(a *app.App) *cobra.Command {
	var f relationFlags
	cmd := &cobra.Command{
		Use:               "unlink FROM TO --type TYPE",
		Short:             "Remove the relation FROM → TO of a type",
		Args:              app.ExactArgs(2, "FROM and TO memory ids"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			e, from, to, t, err := openPair(a, f, args)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			ok, err := e.Unlink(a.Context(), from, to, t)
			if err != nil {
				return fmt.Errorf("unlink: %w", err)
			}
			if a.JSON {
				return a.PrintJSON(map[string]bool{"removed": ok})
			}
			if !ok {
				a.Warnf("no relation %s %s %s: nothing removed", from, t, to)
				return nil
			}
			a.Printf("removed %s %s %s\n", from, t, to)
			return nil
		},
	}
	bindRelationType(cmd, &f.typ)
	return cmd
}

// relatedJSON is one line of `related --json`.
type relatedJSON struct {
	Memory    memoryJSON          `json:"memory"`
	Relation  record.RelationType `json:"relation"`
	Direction string              `json:"direction"` // out: Via → memory; in: memory → Via
	Via       record.ID           `json:"via"`
	Depth     int                 `json:"depth"`
	Weight    float64             `json:"weight"`
}

func newRelatedCmd(a *app.App) *cobra.Command {
	var types string
	var depth, limit int
	cmd := &cobra.Command{
		Use:   "related ID",
		Short: "List the memories related to one, following relations up to --depth hops",
		Long: `related walks the relations of ID in both directions, breadth first, up to --depth
hops (1 to 3), and lists each memory reached once, nearest first, with the relation that
reached it: "→ fixes" means the listed memory is what its via memory fixes, "← fixes"
that the listed memory fixes its via memory.`,
		Example: `  cgraph related 01a2f3c4
  cgraph related 01a2f3c4 --type fixes,causes --depth 2`,
		Args:              app.ExactArgs(1, "the memory id"),
		ValidArgsFunction: completeIDs(a),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ts, err := record.ParseRelationTypes(types)
			if err != nil {
				return &app.UsageError{Problem: "--type: " + err.Error(), Fix: "use names from " + record.RelationTypeNames() + ", comma separated"}
			}
			if depth < 1 || depth > engine.MaxRelatedDepth {
				return app.Usagef(fmt.Sprintf("give a depth from 1 to %d", engine.MaxRelatedDepth), "--depth %d is out of range", depth)
			}
			if limit < 1 {
				return app.Usagef("give a positive number", "--limit %d is not positive", limit)
			}
			e, err := a.OpenRecords(false)
			if err != nil {
				return err
			}
			defer app.CloseEngine(e, &err)
			id, err := e.ResolveID(a.Context(), args[0])
			if err != nil {
				return err
			}
			rel, err := e.Related(a.Context(), id, engine.RelatedOptions{Types: ts, Depth: depth, Limit: limit})
			if err != nil {
				return err
			}
			if a.JSON {
				out := make([]relatedJSON, len(rel))
				for i, r := range rel {
					out[i] = relatedJSON{Memory: toJSON(r.Memory), Relation: r.Relation.Type, Direction: ops.Direction(r.Relation, r.Via), Via: r.Via, Depth: r.Depth, Weight: r.Relation.Weight}
				}
				return a.PrintJSON(out)
			}
			if len(rel) == 0 {
				a.Warnf("memory %s has no relations%s", id, map[bool]string{true: " of those types", false: ""}[len(ts) > 0])
				return nil
			}
			for _, r := range rel {
				arrow := "→"
				if ops.Direction(r.Relation, r.Via) == "in" {
					arrow = "←"
				}
				a.Printf("%d %s %-16s %s\n", r.Depth, arrow, r.Relation.Type, summaryLine(r.Memory, 60))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&types, "type", "", "follow only these relation types, comma separated (default all)")
	cmd.Flags().IntVar(&depth, "depth", 1, fmt.Sprintf("hops to follow, 1 to %d", engine.MaxRelatedDepth))
	cmd.Flags().IntVar(&limit, "limit", engine.DefaultRelatedLimit, "most memories to list")
	return cmd
}
