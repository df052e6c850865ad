package mcpserver

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cgraph/cgraph/record"
)

// filterArg is the "filter" argument of the search tools and get_context:
// record.Filter's JSON form (the same names, also the HTTP API's), with
// times, types and the superseded mode as the strings a caller writes, so
// that the schema shows them as such and a bad value is refused naming the
// field (toFilter). TestFilterArgMatchesRecord keeps the names in step.
type filterArg struct {
	// The field names say what they keep (filterDesc says the rest): one
	// description each would repeat on every tool that takes a filter.
	Project       string            `json:"project,omitempty"`
	AllProjects   bool              `json:"all_projects,omitempty"`
	Types         []string          `json:"types,omitempty"`
	TagsAny       []string          `json:"tags_any,omitempty"`
	TagsAll       []string          `json:"tags_all,omitempty"`
	Session       string            `json:"session,omitempty"`
	Source        string            `json:"source,omitempty"`
	CreatedAfter  string            `json:"created_after,omitempty"`
	CreatedBefore string            `json:"created_before,omitempty"`
	UpdatedAfter  string            `json:"updated_after,omitempty"`
	UpdatedBefore string            `json:"updated_before,omitempty"`
	MinImportance float64           `json:"min_importance,omitempty"`
	Meta          map[string]string `json:"meta,omitempty"`
	Superseded    string            `json:"superseded,omitempty"`
	AsOf          string            `json:"as_of,omitempty"`
}

const filterDesc = "narrow before ranking (RFC 3339 times; all meta pairs match); default: the default or pinned project, superseded excluded"

// toFilter turns the filter argument into a record.Filter scoped to the
// server's project: on a pinned server (Options.Project) the filter
// searches that project, and naming another one, or all projects, is
// refused rather than silently narrowed.
func (s *Server) toFilter(a *filterArg) (record.Filter, error) {
	var f record.Filter
	if a == nil {
		a = &filterArg{}
	}
	if p := s.opts.Project; p != "" {
		switch {
		case a.AllProjects:
			return f, badArg("filter.all_projects", fmt.Sprintf("leave it out: this server is pinned to project %q (cgraph mcp --project); use a server without --project to search every project", p),
				"is not allowed on a server pinned to a project")
		case a.Project != "" && a.Project != p:
			return f, badArg("filter.project", fmt.Sprintf("leave it out or give %q: this server is pinned to that project (cgraph mcp --project)", p),
				"%q is another project", a.Project)
		}
		a.Project = p
	}
	f = record.Filter{Project: a.Project, AllProjects: a.AllProjects, TagsAny: a.TagsAny, TagsAll: a.TagsAll, Session: a.Session,
		Source: a.Source, MinImportance: a.MinImportance, Meta: a.Meta}
	for _, t := range a.Types {
		mt, err := record.ParseType(t)
		if err != nil {
			return f, badArg("filter.types", "give types among "+typeNames(), "%q is not a memory type", t)
		}
		f.Types = append(f.Types, mt)
	}
	var err error
	for _, tf := range []struct {
		name, in string
		out      *time.Time
	}{
		{"created_after", a.CreatedAfter, &f.CreatedAfter},
		{"created_before", a.CreatedBefore, &f.CreatedBefore},
		{"updated_after", a.UpdatedAfter, &f.UpdatedAfter},
		{"updated_before", a.UpdatedBefore, &f.UpdatedBefore},
	} {
		if *tf.out, err = parseTime("filter."+tf.name, tf.in); err != nil {
			return f, err
		}
	}
	if f.Superseded, err = record.ParseSuperseded(a.Superseded); err != nil {
		return f, badArg("filter.superseded", "give exclude, include or only", "%q is not a mode", a.Superseded)
	}
	if a.AsOf != "" {
		if f.AsOf, err = record.ParseAsOf(a.AsOf); err != nil {
			return f, badArg("filter.as_of", "give an RFC 3339 time such as 2026-03-01T14:30:00Z or a date such as 2026-03-01", "%q is neither", a.AsOf)
		}
	}
	for k := range a.Meta {
		if err := record.CheckMetaKey(k); err != nil {
			return f, badArg("filter.meta", "use keys of letters, digits, '_', '.' and '-', as stored with store_memory's meta", "%v", err)
		}
	}
	if err := f.Validate(); err != nil {
		return f, err
	}
	return f, nil
}

// typeNames lists the memory types for messages.
func typeNames() string {
	var ns []string
	for _, t := range record.Types() {
		ns = append(ns, string(t))
	}
	return strings.Join(ns, ", ")
}

// constrainFilter gives the filter object's fields their enumerations,
// bounds and formats (constrain does the top-level arguments).
func constrainFilter(p *jsonschema.Schema) {
	for name, q := range p.Properties {
		if len(q.Types) == 2 && q.Types[0] == "null" {
			q.Type, q.Types = q.Types[1], nil
		}
		switch name {
		case "types":
			q.Items.Enum = enum(strings.Split(typeNames(), ", "))
		case "superseded":
			q.Enum = enum(record.SupersededNames())
		case "min_importance":
			zero, one := 0.0, 1.0
			q.Minimum, q.Maximum = &zero, &one
		case "created_after", "created_before", "updated_after", "updated_before":
			q.Format = "date-time"
		}
	}
}

// relationTypes parses relation type names (the expand and types
// arguments).
func relationTypes(arg string, names []string) ([]record.RelationType, error) {
	var out []record.RelationType
	for _, n := range names {
		t, err := record.ParseRelationType(n)
		if err != nil {
			return nil, badArg(arg, "give relation types among "+record.RelationTypeNames(), "%q is not a relation type", n)
		}
		out = append(out, t)
	}
	return out, nil
}

func relationNames() []string { return strings.Split(record.RelationTypeNames(), ", ") }
