package indexes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpellerReplay replays a bench set's queries through the speller with
// the set's corpus as the store, word by word against the clean query the
// typo query was made from: how many correct words it changes, how many
// typos it sets right, sets wrong or leaves, and why it leaves them. Run it
// on sets made by `cgraph bench prepare … --typos`:
//
//	CGRAPH_SPELL_SETS=bench-out/sets/csn-go-2000,bench-out/sets/csn-py-2000 \
//	  go test ./indexes -run TestSpellerReplay -v
func TestSpellerReplay(t *testing.T) {
	sets := os.Getenv("CGRAPH_SPELL_SETS")
	if sets == "" {
		t.Skip("set CGRAPH_SPELL_SETS to bench set directories")
	}
	for _, dir := range strings.Split(sets, ",") {
		r := replaySet(t, dir)
		t.Logf("%s: clean words changed %d of %d; typos %d: right %d, wrong %d, left %d (English word %d, store word %d, no form near %d, ambiguous %d); untouched words of typo queries changed %d",
			filepath.Base(dir), r.cleanChanged, r.cleanWords, r.typos, r.right, r.wrong, r.left,
			r.leftEnglish, r.leftStore, r.leftNone, r.leftAmbiguous, r.typoQueryOthersChanged)
		if os.Getenv("CGRAPH_SPELL_SHOW") != "" {
			for _, ex := range r.examples {
				t.Log(ex)
			}
		}
	}
}

type replayCounts struct {
	cleanWords, cleanChanged                        int
	typos, right, wrong, left                       int
	leftEnglish, leftStore, leftNone, leftAmbiguous int
	typoQueryOthersChanged                          int
	examples                                        []string
}

func replaySet(t *testing.T, dir string) replayCounts {
	t.Helper()
	sp := NewSpeller()
	readJSONL(t, filepath.Join(dir, "corpus.jsonl"), func(id, text string) { sp.AddText(text) })
	clean := map[string]string{}
	readJSONL(t, filepath.Join(dir, "queries.jsonl"), func(id, text string) { clean[id] = text })
	var r replayCounts
	typos := filepath.Join(dir, "queries-typos.jsonl")
	if _, err := os.Stat(typos); err != nil {
		// A set without typo queries: only what correct queries lose.
		for _, c := range clean {
			for _, w := range queryWords(c) {
				r.cleanWords++
				if fixed, ok := sp.correctWord(w, nil); ok && fixed != w {
					r.cleanChanged++
					r.examples = append(r.examples, fmt.Sprintf("clean %s → %s", w, fixed))
				}
			}
		}
		return r
	}
	readJSONL(t, typos, func(id, typo string) {
		c, ok := clean[id]
		if !ok {
			return
		}
		cw, tw := queryWords(c), queryWords(typo)
		if len(cw) != len(tw) {
			t.Fatalf("%s: %q and %q split differently", id, c, typo)
		}
		for i := range cw {
			r.cleanWords++
			if fixed, ok := sp.correctWord(cw[i], nil); ok && fixed != cw[i] {
				r.cleanChanged++
				r.examples = append(r.examples, fmt.Sprintf("clean %s → %s", cw[i], fixed))
			}
			if tw[i] == cw[i] {
				if fixed, ok := sp.correctWord(tw[i], nil); ok && fixed != tw[i] {
					r.typoQueryOthersChanged++
				}
				continue
			}
			r.typos++
			fixed, ok := sp.correctWord(tw[i], nil)
			switch {
			case ok && fixed == cw[i]:
				r.right++
			case ok:
				r.wrong++
				r.examples = append(r.examples, fmt.Sprintf("wrong %s → %s (was %s)", tw[i], fixed, cw[i]))
			default:
				r.left++
				lw := lower(tw[i])
				sp.mu.RLock()
				_, inStore := sp.forms[lw]
				sp.mu.RUnlock()
				switch {
				case inStore:
					r.leftStore++
				case inDictionary(lw):
					r.leftEnglish++
				default:
					if _, any := sp.Suggest(lw, nil, false); !any && sp.nearCount(lw) > 1 {
						r.leftAmbiguous++
					} else {
						r.leftNone++
					}
				}
				r.examples = append(r.examples, fmt.Sprintf("left %s (was %s)", tw[i], cw[i]))
			}
		}
	})
	return r
}

// nearCount counts the store forms one edit from w with its first letter.
func (s *Speller) nearCount(w string) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	seen := map[string]bool{}
	for _, key := range append(deletes1(w), w) {
		for _, c := range s.deletes[key] {
			if c[0] == w[0] && osaDistance(w, c) == 1 {
				seen[c] = true
			}
		}
	}
	return len(seen)
}

func queryWords(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		out = append(out, text[i:j])
		i = j
	}
	return out
}

func readJSONL(t *testing.T, path string, f func(id, text string)) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f(rec.ID, rec.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
