package profiles

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
)

func TestBuiltinsValid(t *testing.T) {
	ps := Builtin()
	if len(ps) != 17 {
		t.Fatalf("got %d built-in profiles, want 17", len(ps))
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if seen[p.Name] {
			t.Errorf("duplicate profile %s", p.Name)
		}
		seen[p.Name] = true
		if p.Description == "" {
			t.Errorf("%s: no description", p.Name)
		}
	}
}

// TestBuiltinTable pins a few cells of DESIGN.md's table and the declared
// flags, so that a typo in a row or a flag cannot pass silently.
func TestBuiltinTable(t *testing.T) {
	cases := []struct {
		name      string
		slot      fp.SlotID
		want      float64
		temporal  bool
		staged    bool
		e10       float64
		extraTypo bool
	}{
		{"semantic_search", fp.E1, .30, false, false, 0, false},
		{"causal_reasoning", fp.E10, .20, false, false, 0, false},
		{"code_search", fp.E1, .351, false, false, 0, false},
		{"fact_checking", fp.E11, .40, false, false, 0, false},
		{"intent_search", fp.E10, 0, false, false, 1, false},
		{"intent_enhanced", fp.E1, .55, false, false, 2, false},
		{"graph_reasoning", fp.E8, .40, false, false, 0, false},
		{"temporal_navigation", fp.E3, .22, true, true, 0, false},
		{"sequence_navigation", fp.E4, .55, true, true, 0, false},
		{"conversation_history", fp.E4, .35, true, true, 0, false},
		{"category_weighted", fp.E9, .5 / 6.5, false, false, 0, false},
		{"typo_tolerant", fp.E9, .15, false, true, 0, true},
		{"pipeline_stage1_recall", fp.E13, .25, false, true, 0, false},
		{"pipeline_stage2_scoring", fp.E1, .50, false, true, 0, false},
		{"pipeline_full", fp.E13, .07, false, true, 0, false},
		{"balanced", fp.E13, .076, true, true, 0, false},
	}
	for _, c := range cases {
		p, err := Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Weights.Get(c.slot); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s %s = %v, want %v", c.name, c.slot, got, c.want)
		}
		if p.Temporal != c.temporal || p.Staged != c.staged || p.E10Boost != c.e10 {
			t.Errorf("%s flags temporal=%v staged=%v e10=%v", c.name, p.Temporal, p.Staged, p.E10Boost)
		}
		if got := len(p.ExtraRecall) == 1 && p.ExtraRecall[0] == fp.E9; got != c.extraTypo {
			t.Errorf("%s extra recall %v", c.name, p.ExtraRecall)
		}
	}
	ie, _ := Lookup("intent_enhanced")
	is, _ := Lookup("intent_search")
	if ie.Weights != is.Weights || ie.E10Boost <= is.E10Boost {
		t.Error("intent_enhanced must have intent_search's weights and a stronger E10 boost")
	}
}

// TestStageAndTemporalRuleMatchesTable checks that the flags are exactly the
// table's: every staged profile that is not named pipeline_* weighs E12 or
// E13, and every temporal profile weighs a temporal slot.
func TestStageAndTemporalRuleMatchesTable(t *testing.T) {
	for _, p := range Builtin() {
		stageW := p.Weights.Get(fp.E12) + p.Weights.Get(fp.E13)
		if p.Staged != (stageW > 0 || strings.HasPrefix(p.Name, "pipeline_")) {
			t.Errorf("%s: staged=%v but E12+E13=%v", p.Name, p.Staged, stageW)
		}
		tw := p.Weights.Get(fp.E2) + p.Weights.Get(fp.E3) + p.Weights.Get(fp.E4)
		if p.Temporal != (tw > 0) {
			t.Errorf("%s: temporal=%v but E2+E3+E4=%v", p.Name, p.Temporal, tw)
		}
	}
}

func TestBuiltinIsolation(t *testing.T) {
	p, _ := Lookup("typo_tolerant")
	p.Weights.Set(fp.E1, 0.9)
	p.ExtraRecall[0] = fp.E6
	q, _ := Lookup("typo_tolerant")
	if q.Weights.Get(fp.E1) != .30 || q.ExtraRecall[0] != fp.E9 {
		t.Fatal("modifying a looked-up profile changed the built-in")
	}
}

func TestLookupUnknownListsNames(t *testing.T) {
	_, err := Lookup("semantic")
	if err == nil {
		t.Fatal("want error")
	}
	for _, n := range Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %s", err, n)
		}
	}
	if p, err := Lookup(" Code_Search "); err != nil || p.Name != "code_search" {
		t.Errorf("case-insensitive lookup: %v %v", p.Name, err)
	}
}

// TestValidateInvariants gives one failing case per rule.
func TestValidateInvariants(t *testing.T) {
	base := func() Profile {
		p, _ := Lookup("semantic_search")
		p.Name = "custom"
		return p
	}
	cases := []struct {
		name   string
		mutate func(*Profile)
		want   string
	}{
		{"negative weight", func(p *Profile) { p.Weights.Set(fp.E6, -.05); p.Weights.Set(fp.E1, .50) }, "must be in [0, 1]"},
		{"weight above one", func(p *Profile) { p.Weights = Weights{}; p.Weights.Set(fp.E1, 1.5) }, "must be in [0, 1]"},
		{"NaN weight", func(p *Profile) { p.Weights.Set(fp.E7, math.NaN()) }, "give a number"},
		{"sum too small", func(p *Profile) { p.Weights.Set(fp.E1, .27) }, "sum to 0.97"},
		{"sum too large", func(p *Profile) { p.Weights.Set(fp.E1, .32) }, "sum to 1.02"},
		{"temporal in semantic", func(p *Profile) { p.Weights.Set(fp.E2, .03); p.Weights.Set(fp.E1, .27) }, "temporal slot E2"},
		{"E12 unstaged", func(p *Profile) { p.Weights.Set(fp.E12, .03); p.Weights.Set(fp.E1, .27) }, "E12 weighs"},
		{"E13 unstaged", func(p *Profile) { p.Weights.Set(fp.E13, .03); p.Weights.Set(fp.E1, .27) }, "E13 weighs"},
		{"empty name", func(p *Profile) { p.Name = "" }, "name is empty"},
		{"bad name", func(p *Profile) { p.Name = "My Profile" }, "lower-case"},
		{"e10 boost negative", func(p *Profile) { p.E10Boost = -1 }, "e10_boost"},
		{"extra recall temporal", func(p *Profile) { p.ExtraRecall = []fp.SlotID{fp.E3} }, "cannot retrieve"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base()
			if err := p.Validate(); err != nil {
				t.Fatalf("base invalid: %v", err)
			}
			c.mutate(&p)
			err := p.Validate()
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want *ValidationError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
	// The declarations make the same weights valid.
	p := base()
	p.Weights.Set(fp.E2, .03)
	p.Weights.Set(fp.E13, .02)
	p.Weights.Set(fp.E1, .25)
	p.Temporal, p.Staged = true, true
	if err := p.Validate(); err != nil {
		t.Errorf("declared temporal+staged profile rejected: %v", err)
	}
}

func TestWeightsJSON(t *testing.T) {
	p, _ := Lookup("code_search")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Name    string             `json:"name"`
		Weights map[string]float64 `json:"weights"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != "code_search" || len(back.Weights) != 13 || back.Weights["E1"] != .351 || back.Weights["E13"] != 0 {
		t.Errorf("round trip: %s", b)
	}
	if !strings.HasPrefix(string(b[strings.Index(string(b), `"weights"`):]), `"weights":{"E1":0.351,"E2":0`) {
		t.Errorf("weights not in slot order: %s", b)
	}
}

func TestParseOverride(t *testing.T) {
	good := []struct {
		in   string
		slot fp.SlotID
		w    float64
	}{
		{"E5=0.6", fp.E5, .6}, {"e5=0.6", fp.E5, .6}, {"5=0", fp.E5, 0}, {"causal= 1", fp.E5, 1}, {" E13 =.25", fp.E13, .25},
	}
	for _, c := range good {
		o, err := ParseOverride(c.in)
		if err != nil || o.Slot != c.slot || o.Weight != c.w {
			t.Errorf("ParseOverride(%q) = %v, %v", c.in, o, err)
		}
		if back, err := ParseOverride(o.String()); err != nil || back != o {
			t.Errorf("round trip of %v: %v %v", o, back, err)
		}
	}
	bad := map[string]string{
		"E5":       "SLOT=WEIGHT",
		"E14=0.5":  "valid slots are",
		"E5=high":  "not a number",
		"E5=1.5":   "outside [0, 1]",
		"E5=-0.1":  "outside [0, 1]",
		"E5=NaN":   "not a number",
		"=0.3":     "unknown slot",
		"E5=0.6=1": "not a number",
	}
	for in, want := range bad {
		if _, err := ParseOverride(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOverride(%q) error %v, want %q", in, err, want)
		}
	}
	if _, err := ParseOverrides([]string{"E5=0.1", "causal=0.2"}); err == nil || !strings.Contains(err.Error(), "both set E5") {
		t.Errorf("duplicate overrides: %v", err)
	}
}

func TestWithOverridesRenormalises(t *testing.T) {
	p, _ := Lookup("causal_reasoning") // E1 .15 E5 .25 E6 .20 E7 .15 E8 .03 E9 .01 E10 .20 E11 .01
	ovs, err := ParseOverrides([]string{"E5=0.6"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := p.WithOverrides(ovs...)
	if err != nil {
		t.Fatal(err)
	}
	// Others summed .75 and must now share .40: factor .40/.75.
	f := .40 / .75
	want := map[fp.SlotID]float64{fp.E1: .15 * f, fp.E5: .6, fp.E6: .20 * f, fp.E7: .15 * f, fp.E8: .03 * f, fp.E9: .01 * f, fp.E10: .20 * f, fp.E11: .01 * f}
	for s, w := range want {
		if got := q.Weights.Get(s); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", s, got, w)
		}
	}
	if math.Abs(q.Weights.Sum()-1) > 1e-9 {
		t.Errorf("sum %v", q.Weights.Sum())
	}
	if p.Weights.Get(fp.E5) != .25 {
		t.Error("WithOverrides modified its receiver")
	}
	// Zeroing a slot gives its share to the others.
	z, err := p.WithOverrides(Override{fp.E5, 0})
	if err != nil || z.Weights.Get(fp.E5) != 0 || math.Abs(z.Weights.Get(fp.E1)-.15/.75) > 1e-12 {
		t.Errorf("E5=0: %v %v", z.Weights, err)
	}
}

func TestWithOverridesRejects(t *testing.T) {
	p, _ := Lookup("semantic_search")
	cases := []struct {
		ovs  []Override
		want string
	}{
		{[]Override{{fp.E2, .3}}, "temporal slot E2"},
		{[]Override{{fp.E12, .1}}, "E12 weighs"},
		{[]Override{{fp.E1, .7}, {fp.E7, .6}}, "summing to 1.3"},
		{[]Override{{fp.E1, .5}, {fp.E1, .5}}, "twice"},
	}
	for _, c := range cases {
		if _, err := p.WithOverrides(c.ovs...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.ovs, err, c.want)
		}
	}
	// A one-slot profile cannot give weight away.
	one := Profile{Name: "one"}
	one.Weights.Set(fp.E1, 1)
	if _, err := one.WithOverrides(Override{fp.E1, .5}); err == nil || !strings.Contains(err.Error(), "every other slot weighs 0") {
		t.Errorf("one-slot override: %v", err)
	}
	if q, err := one.WithOverrides(Override{fp.E1, .5}, Override{fp.E7, .5}); err != nil || q.Weights.Get(fp.E7) != .5 {
		t.Errorf("complementary overrides: %v", err)
	}
}

func TestLoadFiles(t *testing.T) {
	good := map[string]func(Profile) bool{
		"good_causal.toml": func(p Profile) bool {
			return p.Name == "my_causal" && p.Weights.Get(fp.E5) == .4 && p.Weights.Get(fp.E7) == .3 && p.E10Boost == 1
		},
		"good_typo.yaml": func(p Profile) bool {
			return p.Name == "my-typo" && p.Staged && len(p.ExtraRecall) == 1 && p.ExtraRecall[0] == fp.E9 && p.Weights.Get(fp.E13) == .2
		},
		"good_recent.yml": func(p Profile) bool { return p.Temporal && p.Weights.Get(fp.E2) == .3 },
	}
	for name, check := range good {
		p, err := LoadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !check(p) {
			t.Errorf("%s: unexpected profile %+v", name, p)
		}
	}
	bad := map[string]string{
		"bad_sum.toml":           "sum to 1.2",
		"bad_temporal.yaml":      "temporal slot E2",
		"bad_stage.toml":         "E12 weighs",
		"bad_unknown_slot.yaml":  "valid slots are",
		"bad_unknown_key.toml":   "unknown keys wieghts",
		"bad_builtin_name.yaml":  "built-in profile",
		"bad_range.toml":         "must be in [0, 1]",
		"bad_duplicate.yaml":     "both name E1",
		"bad_syntax.toml":        "parse TOML",
		"missing.yaml":           "no such file",
		"../testdata/README.txt": "unknown extension",
	}
	for name, want := range bad {
		_, err := LoadFile(filepath.Join("testdata", name))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
	// Every bad_* fixture is covered above.
	files, _ := filepath.Glob("testdata/bad_*")
	for _, f := range files {
		if _, ok := bad[filepath.Base(f)]; !ok {
			t.Errorf("fixture %s has no expectation", f)
		}
	}
}

func TestDecodeYAMLUnknownKeyAndEmpty(t *testing.T) {
	if _, err := Decode([]byte("name: x\nweight: {E1: 1}\n"), YAML); err == nil || !strings.Contains(err.Error(), "valid keys") {
		t.Errorf("unknown YAML key: %v", err)
	}
	if _, err := Decode(nil, YAML); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty YAML: %v", err)
	}
	if _, err := Decode([]byte(`name = "x"`), TOML); err == nil || !strings.Contains(err.Error(), "no weights") {
		t.Errorf("no weights: %v", err)
	}
}

func TestMaxFileBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(path, []byte("# "+strings.Repeat("x", MaxFileBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("big file: %v", err)
	}
}

// TestEncodeRoundTrip: every built-in profile, renamed, written as TOML and
// YAML and read back, is the same profile.
func TestEncodeRoundTrip(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p.Name = "my_" + name
		if p.Adaptive { // a file cannot say "weights per query": refused, not silently made static
			if _, err := Encode(p, TOML); err == nil || !strings.Contains(err.Error(), "per query") {
				t.Errorf("%s: encoding an adaptive profile: %v", name, err)
			}
			continue
		}
		for _, f := range []Format{TOML, YAML} {
			b, err := Encode(p, f)
			if err != nil {
				t.Fatalf("%s %s: %v", name, f, err)
			}
			back, err := Decode(b, f)
			if err != nil {
				t.Fatalf("%s %s: decode: %v\n%s", name, f, err, b)
			}
			if !reflect.DeepEqual(back, p) {
				t.Errorf("%s %s: round trip\n got %+v\nwant %+v", name, f, back, p)
			}
		}
	}
	p, _ := Lookup("code_search")
	if _, err := Encode(p, TOML); err == nil {
		t.Error("a built-in profile's name was written")
	}
}

// TestAutoProfileOverrides: per-query weight overrides cannot pin an
// adaptive profile's weights; the error says what to do instead.
func TestAutoProfileOverrides(t *testing.T) {
	p, err := Lookup("auto")
	if err != nil || !p.Adaptive || p.Validate() != nil {
		t.Fatalf("auto: %+v, %v", p, err)
	}
	ovs, err := ParseOverrides([]string{"E5=0.6"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.WithOverrides(ovs...)
	if err == nil || !strings.Contains(err.Error(), "static profile") {
		t.Errorf("auto with an override: %v", err)
	}
}
