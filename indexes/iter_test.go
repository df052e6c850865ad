package indexes

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/cgraph/cgraph/record"
)

func hitsOf(docs ...record.DocNum) Hits {
	h := make(Hits, len(docs))
	for i, d := range docs {
		h[i] = Hit{Doc: d, Score: float32(i)}
	}
	return h
}

func drain(t *testing.T, it Iterator) []record.DocNum {
	t.Helper()
	out, err := ToSlice(it)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIteratorCombinators(t *testing.T) {
	a := func() Iterator { return hitsOf(1, 3, 5, 7, 9, 11).Iter() }
	b := func() Iterator { return FromBitmap(roaring.BitmapOf(3, 4, 5, 11, 20)) }
	c := func() Iterator {
		p := &postingList{docs: []record.DocNum{0, 5, 11, 12}}
		return &postingIter{p: p}
	}
	cases := []struct {
		name string
		it   Iterator
		want string
	}{
		{"hits", a(), "[1 3 5 7 9 11]"},
		{"bitmap", b(), "[3 4 5 11 20]"},
		{"postings", c(), "[0 5 11 12]"},
		{"intersect2", Intersect(a(), b()), "[3 5 11]"},
		{"intersect3", Intersect(a(), b(), c()), "[5 11]"},
		{"intersect none", Intersect(), "[]"},
		{"merge", Merge(a(), b(), c()), "[0 1 3 4 5 7 9 11 12 20]"},
		{"without", Without(a(), b()), "[1 7 9]"},
		{"without empty", Without(a(), Empty()), "[1 3 5 7 9 11]"},
		{"without all", Without(b(), Merge(a(), b())), "[]"},
		{"nested", Without(Merge(a(), c()), Intersect(b(), c())), "[0 1 3 7 9 12]"},
	}
	for _, tc := range cases {
		got := fmt.Sprint(drain(t, tc.it))
		if tc.want == "[]" && got == "[]" {
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestIteratorSeek(t *testing.T) {
	for name, mk := range map[string]func() Iterator{
		"hits":      func() Iterator { return hitsOf(2, 4, 6, 8).Iter() },
		"bitmap":    func() Iterator { return FromBitmap(roaring.BitmapOf(2, 4, 6, 8)) },
		"postings":  func() Iterator { return &postingIter{p: &postingList{docs: []record.DocNum{2, 4, 6, 8}}} },
		"merge":     func() Iterator { return Merge(hitsOf(2, 6).Iter(), hitsOf(4, 8).Iter()) },
		"intersect": func() Iterator { return Intersect(hitsOf(1, 2, 4, 6, 8).Iter(), hitsOf(2, 3, 4, 6, 8, 9).Iter()) },
		"without":   func() Iterator { return Without(hitsOf(1, 2, 4, 5, 6, 8).Iter(), hitsOf(1, 5).Iter()) },
	} {
		it := mk()
		steps := []struct {
			seek record.DocNum
			ok   bool
			at   record.DocNum
		}{{3, true, 4}, {4, true, 4}, {1, true, 4}, {7, true, 8}, {9, false, 0}}
		for _, s := range steps {
			ok := it.Seek(s.seek)
			if ok != s.ok || (ok && it.At() != s.at) {
				t.Errorf("%s: Seek(%d) = %v at %d, want %v at %d", name, s.seek, ok, it.At(), s.ok, s.at)
			}
		}
		it = mk()
		if !it.Next() || it.At() != 2 || !it.Seek(5) || it.At() != 6 || !it.Next() || it.At() != 8 || it.Next() {
			t.Errorf("%s: Next/Seek/Next sequence wrong", name)
		}
	}
}

func TestIteratorErrors(t *testing.T) {
	bad := Hits{{Doc: 5}, {Doc: 2}}.Iter()
	if bad.Next() || bad.Err() == nil {
		t.Fatal("unsorted hits did not report an error")
	}
	for name, it := range map[string]Iterator{
		"intersect": Intersect(hitsOf(1, 2).Iter(), Hits{{Doc: 5}, {Doc: 2}}.Iter()),
		"merge":     Merge(hitsOf(1, 2).Iter(), Hits{{Doc: 5}, {Doc: 2}}.Iter()),
		"without":   Without(hitsOf(1, 2).Iter(), Hits{{Doc: 5}, {Doc: 2}}.Iter()),
	} {
		if _, err := ToSlice(it); err == nil {
			t.Errorf("%s: error not propagated", name)
		}
		if _, err := ToBitmap(it); err == nil {
			t.Errorf("%s: ToBitmap swallowed the error", name)
		}
	}
}

// TestIteratorRandomSets compares the combinators with set arithmetic on maps.
func TestIteratorRandomSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	randSet := func() []record.DocNum {
		m := map[record.DocNum]bool{}
		for range rng.IntN(50) {
			m[record.DocNum(rng.IntN(100))] = true
		}
		var out []record.DocNum
		for d := range m {
			out = append(out, d)
		}
		slices.Sort(out)
		return out
	}
	for range 200 {
		x, y := randSet(), randSet()
		in := func(s []record.DocNum, d record.DocNum) bool { _, ok := slices.BinarySearch(s, d); return ok }
		var and, or, not []record.DocNum
		for d := range record.DocNum(100) {
			if in(x, d) && in(y, d) {
				and = append(and, d)
			}
			if in(x, d) || in(y, d) {
				or = append(or, d)
			}
			if in(x, d) && !in(y, d) {
				not = append(not, d)
			}
		}
		it := func(s []record.DocNum) Iterator { return hitsOf(s...).Iter() }
		if g := drain(t, Intersect(it(x), it(y))); !slices.Equal(g, and) {
			t.Fatalf("Intersect(%v, %v) = %v, want %v", x, y, g, and)
		}
		if g := drain(t, Merge(it(x), it(y))); !slices.Equal(g, or) {
			t.Fatalf("Merge(%v, %v) = %v, want %v", x, y, g, or)
		}
		if g := drain(t, Without(it(x), it(y))); !slices.Equal(g, not) {
			t.Fatalf("Without(%v, %v) = %v, want %v", x, y, g, not)
		}
	}
}

func TestHitsBitmapAndSort(t *testing.T) {
	h := Hits{{Doc: 9, Score: 0.5}, {Doc: 2, Score: 0.1}, {Doc: 4, Score: 0.5}, {Doc: 7, Score: 0.9}}
	if got := h.Bitmap().ToArray(); fmt.Sprint(got) != "[2 4 7 9]" {
		t.Errorf("Bitmap = %v", got)
	}
	h.SortByScore()
	if fmt.Sprint(h.Docs()) != "[7 4 9 2]" { // 4 before 9: equal scores, lower doc first
		t.Errorf("SortByScore = %v", h)
	}
	h.SortByDoc()
	if fmt.Sprint(h.Docs()) != "[2 4 7 9]" || h[2].Score != 0.9 {
		t.Errorf("SortByDoc = %v", h)
	}
}
