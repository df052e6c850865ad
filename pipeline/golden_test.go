package pipeline

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	fp "github.com/cgraph/cgraph/fingerprint"
	"github.com/cgraph/cgraph/profiles"
	"github.com/cgraph/cgraph/record"
)

// goldenRun is one case of testdata/runs.json: literal ranked lists per probe
// ("E5/backward", "E1/matryoshka128", "E7"), a request, and the expected
// result order and trace notes.
type goldenRun struct {
	Name        string                  `json:"name"`
	Profile     string                  `json:"profile"`
	Mode        string                  `json:"mode"`
	Primary     string                  `json:"primary"`
	Direction   string                  `json:"direction"`
	Unavailable []string                `json:"unavailable"`
	Lists       map[string][][2]float64 `json:"lists"`
	Want        []record.DocNum         `json:"want"`
	Notes       map[Stage]string        `json:"notes"`
}

func parseProbe(t *testing.T, s string) Probe {
	name, view, _ := strings.Cut(s, "/")
	slot, err := fp.ParseSlot(name)
	if err != nil {
		t.Fatal(err)
	}
	p := Probe{Slot: slot}
	if view != "" {
		i := slices.Index(viewNames[:], view)
		if i < 0 {
			t.Fatalf("unknown view %q", view)
		}
		p.View = View(i)
	}
	return p
}

func TestGoldenRuns(t *testing.T) {
	data, err := os.ReadFile("testdata/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenRun
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			f := newFake()
			for k, pairs := range c.Lists {
				var flat []float64
				for _, p := range pairs {
					flat = append(flat, p[0], p[1])
				}
				f.set(parseProbe(t, k), flat...)
			}
			for _, u := range c.Unavailable {
				f.unavailable[parseProbe(t, u).Slot] = true
			}
			p, err := profiles.Lookup(c.Profile)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Query: c.Name, Profile: p}
			if req.Mode, err = ParseMode(c.Mode); err != nil {
				t.Fatal(err)
			}
			if req.Direction, err = ParseDirection(c.Direction); err != nil {
				t.Fatal(err)
			}
			if c.Primary != "" {
				req.Primary = parseProbe(t, c.Primary).Slot
			}
			res, err := Run(ctx, f, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := docs(res); !slices.Equal(got, c.Want) {
				t.Errorf("results %v, want %v", got, c.Want)
			}
			for st, want := range c.Notes {
				if n := traceOf(res, st).Note; !strings.Contains(n, want) {
					t.Errorf("%s note %q lacks %q", st, n, want)
				}
			}
		})
	}
}
