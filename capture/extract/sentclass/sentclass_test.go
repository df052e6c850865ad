package sentclass

import (
	"bytes"
	"reflect"
	"testing"
)

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"Let's go with Postgres 16.", []string{"let's", "go", "with", "postgres", "<num>"}},
		{"we’ll keep `retry_loop()` as is", []string{"we'll", "keep", "<code>", "as", "is"}},
		{"put workers in lib/tally/workers, never under tally_web", []string{"put", "workers", "in", "<path>", "never", "under", "<ident>"}},
		{"table-driven tests, always.", []string{"table-driven", "tests", "always"}},
		{"", nil},
	} {
		if got := tokens(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("tokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFeaturesSpeakerAndPairs(t *testing.T) {
	f := Features(Input{User: true, Text: "Always squash."})
	want := []string{"s:u", "f:u:always", "n:4", "w:always", "b:<s> always", "w:squash", "b:always squash", "b:squash </s>"}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("Features = %q, want %q", f, want)
	}
	if a := Features(Input{Text: "Always squash."}); a[0] != "s:a" || a[1] != "f:a:always" {
		t.Fatalf("the assistant's features start %q", a[:2])
	}
	// of the previous message, only that it is there, asks, and offers a choice
	p := Features(Input{User: true, Text: "ok", Prev: "Redis or an LRU? I'd suggest the LRU."})
	if want := []string{"p:any", "p:?", "p:or", "p:i'd", "p:suggest"}; !reflect.DeepEqual(p[len(p)-len(want):], want) {
		t.Fatalf("Features with a previous message end %q, want %q", p, want)
	}
}

// TestTrainSeparates trains on a toy set whose label is carried by one
// word and checks the model learned that word, and that training is
// deterministic.
func TestTrainSeparates(t *testing.T) {
	var ex []Example
	for _, s := range []string{"the api", "the cache", "the queue", "the parser", "the build", "the logger"} {
		ex = append(ex,
			Example{Input: Input{User: true, Text: "decided " + s}, Label: Decision},
			Example{Input: Input{User: true, Text: "always " + s}, Label: Preference},
			Example{Input: Input{User: true, Text: "look at " + s}, Label: None})
	}
	m := Train(ex, TrainOptions{Seed: 3})
	for text, want := range map[string]Label{"decided the router": Decision, "always the router": Preference, "look at the router": None} {
		p := m.Probs(Input{User: true, Text: text})
		if p[want] < 0.6 {
			t.Errorf("%q: P(%s) = %.2f, want ≥ 0.6 (%v)", text, want, p[want], p)
		}
	}
	a, _ := m.MarshalText()
	b, _ := Train(ex, TrainOptions{Seed: 3}).MarshalText()
	if !bytes.Equal(a, b) {
		t.Fatal("two trainings on the same input wrote different models")
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	m := Train([]Example{
		{Input: Input{User: true, Text: "we use tabs"}, Label: Preference}, {Input: Input{User: true, Text: "we use tabs here"}, Label: Preference},
		{Input: Input{Text: "the tests pass"}, Label: None}, {Input: Input{Text: "the tests pass now"}, Label: None},
	}, TrainOptions{MinCount: 1})
	b, err := m.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalText()
	if !bytes.Equal(b, b2) {
		t.Fatalf("round trip changed the model:\n%s\n%s", b, b2)
	}
	if p, q := m.Probs(Input{User: true, Text: "we use tabs"}), back.Probs(Input{User: true, Text: "we use tabs"}); abs(p[Preference]-q[Preference]) > 1e-3 {
		t.Fatalf("P(preference) %.4f before, %.4f after the round trip", p[Preference], q[Preference])
	}
}

func TestParseRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"header":     "cgraph-sentclass 2\n\x00bias\t0\t0\t0\n",
		"no bias":    "cgraph-sentclass 1\nw:a\t1\t2\t3\n",
		"short":      "cgraph-sentclass 1\n\x00bias\t0\t0\t0\nw:a\t1\t2\n",
		"nan":        "cgraph-sentclass 1\n\x00bias\t0\t0\t0\nw:a\t1\tNaN\t3\n",
		"twice":      "cgraph-sentclass 1\n\x00bias\t0\t0\t0\nw:a\t1\t2\t3\nw:a\t1\t2\t3\n",
		"two biases": "cgraph-sentclass 1\n\x00bias\t0\t0\t0\n\x00bias\t0\t0\t0\n",
		"empty":      "",
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%s: Parse accepted %q", name, in)
		}
	}
}

func TestDefaultParses(t *testing.T) {
	if m := Default(); m == nil || len(m.weights) == 0 {
		t.Fatal("the shipped model is empty: rebuild it with go run ./capture/extract/sentclass/train -out capture/extract/sentclass/default.model")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("cgraph-sentclass 1\n\x00bias\t0\t0\t0\nw:a\t1\t2\t3\n"))
	f.Add(defaultModel[:min(len(defaultModel), 400)])
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Parse(b)
		if err != nil {
			t.Fatalf("a model that parsed wrote bytes that do not: %v", err)
		}
		p := m2.Probs(Input{User: true, Text: "we always use tabs", Prev: "Tabs or spaces?"})
		if s := p[0] + p[1] + p[2]; abs(s-1) > 1e-6 {
			t.Fatalf("probabilities sum to %v", s)
		}
	})
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
