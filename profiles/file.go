package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/cgraph/cgraph/fingerprint"
	yaml "go.yaml.in/yaml/v3"
)

// Format is the syntax of a custom profile file.
type Format uint8

// The supported file formats.
const (
	TOML Format = iota + 1
	YAML
)

// String returns "toml" or "yaml".
func (f Format) String() string {
	switch f {
	case TOML:
		return "toml"
	case YAML:
		return "yaml"
	}
	return fmt.Sprintf("format(%d)", uint8(f))
}

// MaxFileBytes bounds a profile file; real ones are a few hundred bytes.
const MaxFileBytes = 64 << 10

// FormatOf picks the format from a file name's extension.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		return TOML, nil
	case ".yaml", ".yml":
		return YAML, nil
	}
	return 0, fmt.Errorf("profile file %s: unknown extension %q: name it .toml, .yaml or .yml", path, filepath.Ext(path))
}

// LoadFile reads and validates a custom profile from a TOML or YAML file.
func LoadFile(path string) (Profile, error) {
	f, err := FormatOf(path)
	if err != nil {
		return Profile{}, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return Profile{}, fmt.Errorf("open profile file: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if cerr := fh.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return Profile{}, fmt.Errorf("read profile file %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return Profile{}, fmt.Errorf("profile file %s is over %d bytes: a profile is a name and 13 weights", path, MaxFileBytes)
	}
	p, err := Decode(data, f)
	if err != nil {
		return Profile{}, fmt.Errorf("profile file %s: %w", path, err)
	}
	return p, nil
}

// fileProfile is the on-disk shape of a custom profile.
type fileProfile struct {
	Name        string             `toml:"name" yaml:"name"`
	Description string             `toml:"description" yaml:"description"`
	Weights     map[string]float64 `toml:"weights" yaml:"weights"`
	E10Boost    float64            `toml:"e10_boost" yaml:"e10_boost"`
	Temporal    bool               `toml:"temporal" yaml:"temporal"`
	Staged      bool               `toml:"staged" yaml:"staged"`
	ExtraRecall []string           `toml:"extra_recall" yaml:"extra_recall"`
}

// Decode parses a custom profile in the given format and validates it. Unknown
// keys, duplicate slots, unknown slots and names of built-in profiles are
// rejected.
func Decode(data []byte, f Format) (Profile, error) {
	var fpf fileProfile
	switch f {
	case TOML:
		md, err := toml.Decode(string(data), &fpf)
		if err != nil {
			return Profile{}, fmt.Errorf("parse TOML: %w", err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			keys := make([]string, len(und))
			for i, k := range und {
				keys[i] = k.String()
			}
			return Profile{}, fmt.Errorf("unknown keys %s: valid keys are %s", strings.Join(keys, ", "), validKeys)
		}
	case YAML:
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&fpf); err != nil {
			if errors.Is(err, io.EOF) {
				return Profile{}, errors.New("parse YAML: the file is empty: give name and weights")
			}
			return Profile{}, fmt.Errorf("parse YAML (valid keys are %s): %w", validKeys, err)
		}
	default:
		return Profile{}, fmt.Errorf("unsupported profile format %s", f)
	}
	return fpf.profile()
}

const validKeys = "name, description, weights, e10_boost, temporal, staged, extra_recall"

func (fpf fileProfile) profile() (Profile, error) {
	name := strings.TrimSpace(fpf.Name)
	if isBuiltin(name) {
		return Profile{}, fmt.Errorf("name %q is a built-in profile: choose another name", name)
	}
	if len(fpf.Weights) == 0 {
		return Profile{}, errors.New("no weights: give a weights table such as {E1: 0.5, E7: 0.5}")
	}
	p := Profile{Name: name, Description: fpf.Description, E10Boost: fpf.E10Boost,
		Temporal: fpf.Temporal, Staged: fpf.Staged}
	keys := make([]string, 0, len(fpf.Weights))
	for k := range fpf.Weights {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic error messages
	from := map[fingerprint.SlotID]string{}
	for _, k := range keys {
		s, err := fingerprint.ParseSlot(k)
		if err != nil {
			return Profile{}, fmt.Errorf("weights: %w", err)
		}
		if prev, dup := from[s]; dup {
			return Profile{}, fmt.Errorf("weights: %q and %q both name %s: give it once", prev, k, s)
		}
		from[s] = k
		p.Weights.Set(s, fpf.Weights[k])
	}
	for _, k := range fpf.ExtraRecall {
		s, err := fingerprint.ParseSlot(k)
		if err != nil {
			return Profile{}, fmt.Errorf("extra_recall: %w", err)
		}
		p.ExtraRecall = append(p.ExtraRecall, s)
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// Encode writes p as a profile file of format f that Decode and LoadFile
// read back to an equal profile: weights by slot name (E1 … E13, zero
// weights left out), extra recall slots, the flags. A built-in profile's
// name is refused, as Decode would refuse it.
func Encode(p Profile, f Format) ([]byte, error) {
	if isBuiltin(p.Name) {
		return nil, fmt.Errorf("name %q is a built-in profile: give the profile file another name", p.Name)
	}
	if p.Adaptive {
		return nil, fmt.Errorf("profile %s sets its weights per query (adaptive), which a profile file cannot express: write a static profile, e.g. from `profiles learn`", p.Name)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	fpf := fileProfile{Name: p.Name, Description: p.Description, Weights: map[string]float64{},
		E10Boost: p.E10Boost, Temporal: p.Temporal, Staged: p.Staged}
	for _, s := range p.Weights.Active() {
		fpf.Weights[s.String()] = p.Weights.Get(s)
	}
	for _, s := range p.ExtraRecall {
		fpf.ExtraRecall = append(fpf.ExtraRecall, s.String())
	}
	var buf bytes.Buffer
	switch f {
	case TOML:
		if err := toml.NewEncoder(&buf).Encode(fpf); err != nil {
			return nil, fmt.Errorf("encode profile: %w", err)
		}
	case YAML:
		if err := yaml.NewEncoder(&buf).Encode(fpf); err != nil {
			return nil, fmt.Errorf("encode profile: %w", err)
		}
	default:
		return nil, fmt.Errorf("encode profile: unknown format %s", f)
	}
	return buf.Bytes(), nil
}
