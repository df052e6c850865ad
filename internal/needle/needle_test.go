package needle

import "testing"

func TestMay(t *testing.T) {
	words := Set{Needles: []string{"now", "took over"}, Fold: true, Words: true}
	plain := Set{Needles: []string{"exit"}, Fold: true}
	exact := Set{Needles: []string{"AKIA"}}
	for _, c := range []struct {
		s    Set
		text string
		want bool
	}{
		{Set{}, "anything", true},
		{words, "It is NOW done", true},
		{words, "known snow", false},        // no whole word
		{words, "x_now", false},             // _ is a word byte
		{words, "now_", false},              //
		{words, "(now)", true},              //
		{words, "he TOOK OVER", true},       // a phrase
		{words, "\u212Anow", true},          // non-ASCII: the Kelvin sign lower-cases to k, any occurrence counts
		{words, "café now", true},           // non-ASCII with the word
		{words, "café", false},              //
		{plain, "exited with code 1", true}, // not Words: inside a longer word counts
		{plain, "EXIT", true},
		{plain, "ſomething", false},
		{exact, "akia", false}, // no Fold: case matters
		{exact, "xAKIAx", true},
	} {
		if got := c.s.May(c.text, Lower(c.text)); got != c.want {
			t.Errorf("%+v on %q: %v, want %v", c.s, c.text, got, c.want)
		}
	}
	if Lower("PAſS") != "pass" {
		t.Errorf("Lower(PAſS) = %q", Lower("PAſS"))
	}
}

func TestRegexp(t *testing.T) {
	re := MustCompile(`(?i)\bexit(?:ed)? (\d+)`, Set{Needles: []string{"exit"}})
	if got := re.FindAllStringSubmatch("Exited 3; exit 4", -1); len(got) != 2 || got[1][1] != "4" {
		t.Errorf("FindAllStringSubmatch: %q", got)
	}
	if got := re.FindString("no match here"); got != "" {
		t.Errorf("FindString: %q", got)
	}
	if !re.set.Fold {
		t.Error("a (?i) expression's Set does not fold")
	}
}
