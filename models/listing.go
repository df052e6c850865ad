package models

// Listing is one model of the manifest as `cgraph models list --json`
// reports it: what it serves, where it installs, and whether it is
// installed (checked without re-hashing, as Installed does).
type Listing struct {
	ID          string            `json:"id"`
	Slots       []string          `json:"slots"`
	Installed   bool              `json:"installed"`
	Files       []FileListing     `json:"files"`
	Sources     []Source          `json:"sources"`
	Task        TaskKind          `json:"task"`
	Pooling     Pooling           `json:"pooling"`
	Dims        int               `json:"dims"`
	MaxLength   int               `json:"max_length"`
	Default     bool              `json:"default"`
	NeedsHub    bool              `json:"needs_hub"`
	Licence     string            `json:"licence"`
	Description string            `json:"description"`
	Path        string            `json:"path"`
	Quant       string            `json:"quantization"`
	Prefixes    map[string]string `json:"prefixes"`
}

// FileListing is one pinned file of a Listing.
type FileListing struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Listings is every model of the manifest, in its order, as installed
// under dir. It reads only the install records, never hashes a file.
func (mf *Manifest) Listings(dir string) []Listing {
	out := make([]Listing, 0, len(mf.Models))
	for _, m := range mf.Models {
		l := Listing{
			ID: string(m.ID), Slots: m.SlotNames, Installed: mf.Installed(dir, m.ID),
			Sources: m.Sources, Task: m.Task, Pooling: m.Pooling, Dims: m.Dims, MaxLength: m.MaxLength,
			Default: m.Default, NeedsHub: m.NeedsHub, Licence: m.Licence, Description: m.Description,
			Path: Path(dir, m.ID, ""), Quant: m.Quantization,
			Prefixes: map[string]string{"query": m.QueryPrefix, "passage": m.PassagePrefix},
		}
		if l.Slots == nil {
			l.Slots = []string{}
		}
		for _, f := range m.Files {
			l.Files = append(l.Files, FileListing{Name: f.Name, SHA256: f.SHA256, Size: f.Size})
		}
		out = append(out, l)
	}
	return out
}

// PullOutcome is one model's result of Installer.Pull as `cgraph models
// pull --json` reports it; its lists are [] rather than null.
type PullOutcome struct {
	ID        string            `json:"id"`
	OK        bool              `json:"ok"`
	Installed []string          `json:"installed"`
	Present   []string          `json:"present"`
	Sources   map[string]string `json:"sources"`
	Error     string            `json:"error,omitempty"`
}

// OutcomeOf is r's report.
func OutcomeOf(r Result) PullOutcome {
	o := PullOutcome{ID: string(r.Model), OK: r.Err == nil, Installed: r.Installed, Present: r.Present, Sources: r.Sources}
	if o.Installed == nil {
		o.Installed = []string{}
	}
	if o.Present == nil {
		o.Present = []string{}
	}
	if r.Err != nil {
		o.Error = r.Err.Error()
	}
	return o
}
