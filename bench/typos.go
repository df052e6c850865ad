package bench

import (
	"hash/fnv"
	"math/rand/v2"

	"unicode"
)

// TypoRate is the chance that an eligible word (≥ 4 letters) gets one typo.
const TypoRate = 0.3

// qwerty lists each letter's neighbours on a US QWERTY keyboard.
var qwerty = map[rune]string{
	'q': "wa", 'w': "qeas", 'e': "wrsd", 'r': "etdf", 't': "ryfg", 'y': "tugh", 'u': "yihj",
	'i': "uojk", 'o': "ipkl", 'p': "ol", 'a': "qwsz", 's': "weadzx", 'd': "erfsxc",
	'f': "rtdgcv", 'g': "tyfhvb", 'h': "yugjbn", 'j': "uihknm", 'k': "iojlm", 'l': "opk",
	'z': "asx", 'x': "zsdc", 'c': "xdfv", 'v': "cfgb", 'b': "vghn", 'n': "bhjm", 'm': "njk",
}

// AddTypos returns text with deterministic keyboard-neighbour typos: each
// word of at least 4 ASCII letters gets, with probability TypoRate, one
// letter (never the first) replaced by a QWERTY neighbour, case kept. The
// random stream depends only on seed and key (e.g. the query id), so one
// query's typos do not change when other queries are added or removed.
func AddTypos(text string, seed uint64, key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	rs := []rune(text)
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j] < unicode.MaxASCII && unicode.IsLetter(rs[j]) {
			j++
		}
		if j == i {
			i++
			continue
		}
		if j-i >= 4 && r.Float64() < TypoRate {
			p := i + 1 + r.IntN(j-i-1)
			lower := unicode.ToLower(rs[p])
			nb := qwerty[lower]
			c := rune(nb[r.IntN(len(nb))])
			if unicode.IsUpper(rs[p]) {
				c = unicode.ToUpper(c)
			}
			rs[p] = c
		}
		i = j
	}
	return string(rs)
}
