package indexes

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// wordsGz is a general English word list, one lower-case word of 4 to 40
// ASCII letters a line, sorted, gzipped: Debian's wamerican 2020.12.07-2
// (SCOWL size 50, American spelling; wordlist/README.md says how it was
// made and why this list).
//
//go:embed wordlist/words.txt.gz
var wordsGz []byte

// dictionary returns the embedded word list, sorted (decompressed once, on
// first use: about 72,000 words, 1.7 MB of heap).
var dictionary = sync.OnceValue(func() []string {
	words, err := readWordList(wordsGz)
	if err != nil {
		// The list is compiled into the binary and checked by a test:
		// failing to read it is a broken build, not a run-time condition.
		panic(fmt.Sprintf("indexes: embedded word list: %v", err))
	}
	return words
})

func readWordList(gz []byte) ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("open gzip: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	words := strings.Fields(string(raw))
	if !sort.StringsAreSorted(words) {
		return nil, fmt.Errorf("the %d words are not sorted", len(words))
	}
	return words, nil
}

// inDictionary reports whether w (lower case) is a word of the general
// English word list. Cost O(log n) string compares.
func inDictionary(w string) bool {
	d := dictionary()
	i := sort.SearchStrings(d, w)
	return i < len(d) && d[i] == w
}
