package models

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/cgraph/cgraph/fingerprint"
)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestBuiltinManifest walks the manifest shipped in the binary: every file
// of a mirrored model is pinned, every model has a source, every slot name
// parses.
func TestBuiltinManifest(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Models) < 5 {
		t.Fatalf("built-in manifest has %d models, want the registry-mirrored ones and the needs-hub ones", len(m.Models))
	}
	var raw struct {
		Models []struct {
			Slots []string `json:"slots"`
		} `json:"models"`
		Prefs map[string][]string `json:"slot_preferences"`
	}
	if err := json.Unmarshal(builtinManifest, &raw); err != nil {
		t.Fatal(err)
	}
	for i, mod := range raw.Models {
		for _, s := range mod.Slots {
			if _, err := fingerprint.ParseSlot(s); err != nil {
				t.Errorf("model %d: slot %q: %v", i, s, err)
			}
		}
	}
	for s := range raw.Prefs {
		if _, err := fingerprint.ParseSlot(s); err != nil {
			t.Errorf("slot_preferences: %v", err)
		}
	}
	mirrored := 0
	for _, mod := range m.Models {
		if len(mod.Sources) == 0 {
			t.Errorf("%s: no source", mod.ID)
		}
		if mod.NeedsHub {
			if mod.Sources[0].Kind != SourceHub {
				t.Errorf("%s: needs_hub model whose first source is %s", mod.ID, mod.Sources[0].Kind)
			}
			continue
		}
		mirrored++
		for _, f := range mod.Files {
			if !hex64.MatchString(f.SHA256) || f.Size <= 0 {
				t.Errorf("%s/%s: sha256 %q size %d: want 64 hex digits and a size", mod.ID, f.Name, f.SHA256, f.Size)
			}
		}
		if _, ok := mod.File(RoleONNX); !ok {
			t.Errorf("%s: no onnx file", mod.ID)
		}
		for i, src := range mod.Sources {
			if src.Kind == SourceHub && i != 0 {
				t.Errorf("%s: hub source must come first, found at %d", mod.ID, i)
			}
		}
	}
	if mirrored < 3 {
		t.Errorf("only %d models have a registry mirror", mirrored)
	}
}

// TestDefaultsServeE1 pins the machine's default set: e5-small-v2 first for E1.
func TestDefaultsServeE1(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	defs := m.Defaults()
	want := []ModelID{"e5-small-v2", "e5-small-v2-q", "bge-small-en-v1.5", "bge-small-en-v1.5-q", "all-minilm-l6-v2"}
	if strings.Join(idsToStrings(defs), ",") != strings.Join(idsToStrings(want), ",") {
		t.Fatalf("defaults = %v, want %v", defs, want)
	}
	for _, id := range defs {
		mod, _ := m.Model(id)
		if mod.NeedsHub || !mod.Pinned() {
			t.Errorf("default %s must be mirrored and pinned", id)
		}
	}
	installed := func(id ModelID) bool { return id == "e5-small-v2" || id == "all-minilm-l6-v2" }
	if got, ok := m.Resolve(fingerprint.E1, installed); !ok || got != "e5-small-v2" {
		t.Errorf("Resolve(E1) = %q, %v; want e5-small-v2 (e5-large-v2 is not installed)", got, ok)
	}
	if got, ok := m.Resolve(fingerprint.E13, installed); ok {
		t.Errorf("Resolve(E13) = %q, want none installed", got)
	}
	e5, _ := m.Model("e5-small-v2")
	if e5.QueryPrefix != "query: " || e5.PassagePrefix != "passage: " || e5.Pooling != PoolMean || e5.Dims != 384 || !e5.Normalize {
		t.Errorf("e5-small-v2 entry = %+v", e5)
	}
	if p, err := e5.PathOf("/m", RoleTokenizer); err != nil || p != "/m/e5-small-v2/tokenizer.json" {
		t.Errorf("PathOf(tokenizer) = %q, %v", p, err)
	}
	if _, err := e5.PathOf("/m", RoleONNXData); err == nil {
		t.Error("PathOf(onnx_data) succeeded for a model without external data")
	}
	if _, err := m.Model("no-such-model"); err == nil || !strings.Contains(err.Error(), "e5-small-v2") {
		t.Errorf("unknown model error should list known models, got %v", err)
	}
}

func idsToStrings(ids []ModelID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

const validManifest = `{
  "version": 1,
  "hub_endpoint": "https://hub.example",
  "models": [{
    "id": "tiny", "description": "d", "task": "dense_encoder", "slots": ["E1"],
    "pooling": "mean", "normalize": true, "query_prefix": "", "passage_prefix": "",
    "max_length": 8, "dims": 4, "inputs": ["input_ids"], "output": "last_hidden_state",
    "quantization": "fp32", "licence": "MIT", "upstream": "u",
    "files": [
      {"name": "model.onnx", "role": "onnx", "sha256": "` + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `", "size": 3},
      {"name": "tokenizer.json", "role": "tokenizer", "sha256": "` + "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" + `", "size": 3}
    ],
    "sources": [
      {"kind": "hub", "package": "o/tiny", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}},
      {"kind": "maven", "package": "g:a:1", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}}
    ]
  }],
  "slot_preferences": {"E1": ["tiny"]}
}`

func TestParseManifestRejects(t *testing.T) {
	if _, err := ParseManifest([]byte(validManifest)); err != nil {
		t.Fatalf("valid manifest rejected: %v", err)
	}
	cases := []struct {
		name, old, new, want string
	}{
		{"short sha", `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`, `"abc"`, "not 64 lower-case hex"},
		{"upper-case sha", `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`, `"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"`, "not 64 lower-case hex"},
		{"missing sha", `"sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", `, ``, "has no sha256"},
		{"bad slot", `"slots": ["E1"]`, `"slots": ["E14"]`, "unknown slot"},
		{"bad preference slot", `{"E1": ["tiny"]}`, `{"E99": ["tiny"]}`, "unknown slot"},
		{"preference for unknown model", `{"E1": ["tiny"]}`, `{"E1": ["huge"]}`, `unknown model "huge"`},
		{"preference slot not served", `{"E1": ["tiny"]}`, `{"E7": ["tiny"]}`, "does not list slot E7"},
		{"unknown field", `"sources": [`, `"extra": 1, "sources": [`, "unknown field"},
		{"unknown task", `"dense_encoder"`, `"sparse"`, "unknown task"},
		{"splade pooling on dense", `"pooling": "mean"`, `"pooling": "splade_max"`, "splade_max goes with task masked_lm"},
		{"path escape", `"m.onnx", "tokenizer.json": "t.json"}},
      {"kind": "maven"`, `"../m.onnx", "tokenizer.json": "t.json"}},
      {"kind": "maven"`, "without '..'"},
		{"file name with slash", `"name": "model.onnx"`, `"name": "a/model.onnx"`, "plain file name"},
		{"bad maven coords", `"g:a:1"`, `"g-a-1"`, "group:artifact:version"},
		{"no mirror", `{"kind": "maven", "package": "g:a:1", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}}`, `{"kind": "hub", "package": "o/other", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}}`, "mark it needs_hub"},
		{"wrong version", `"version": 1`, `"version": 2`, "version 2 is not supported"},
		{"id with slash", `"id": "tiny"`, `"id": "../tiny"`, "names a directory"},
		{"trailing data", `"slot_preferences": {"E1": ["tiny"]}
}`, `"slot_preferences": {"E1": ["tiny"]}
} {}`, "trailing data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(validManifest, c.old) {
				t.Fatalf("test case does not apply: %q not in manifest", c.old)
			}
			_, err := ParseManifest([]byte(strings.Replace(validManifest, c.old, c.new, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(validManifest))
	f.Add(builtinManifest)
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for _, mod := range m.Models {
			got, err := m.Model(mod.ID)
			if err != nil || got != mod {
				t.Fatalf("model %q accepted but not found: %v", mod.ID, err)
			}
			if !modelIDRe.MatchString(string(mod.ID)) {
				t.Fatalf("accepted bad id %q", mod.ID)
			}
			for _, f := range mod.Files {
				if cleanBase(f.Name) == "" {
					t.Fatalf("accepted file name %q", f.Name)
				}
				if f.Pinned() && !hex64.MatchString(f.SHA256) {
					t.Fatalf("accepted sha256 %q", f.SHA256)
				}
			}
			for _, s := range mod.Slots {
				if !s.Valid() {
					t.Fatalf("accepted slot %d", s)
				}
			}
		}
	})
}
