package contradict

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// codePairs are neighbouring functions of a Go standard-library file with
// their doc comments: the shape of the code memories a bulk import judges
// (issue 33: the judge is the largest CPU cost of a write's similar-memory
// search), each pair taken as the same subject so that every step runs.
func codePairs(tb testing.TB) [][2]string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "strings", "strings.go"))
	if err != nil {
		tb.Skipf("no Go source to judge: %v", err)
	}
	var funcs []string
	for _, f := range strings.Split(string(src), "\n// ")[1:] {
		if len(f) > 200 {
			funcs = append(funcs, "// "+f)
		}
	}
	var pairs [][2]string
	for i := 1; i < len(funcs); i++ {
		pairs = append(pairs, [2]string{funcs[i-1], funcs[i]})
	}
	return pairs
}

// BenchmarkJudgeCode judges each function against its neighbour, as a
// write judges a new memory against a close stored one.
//
//	go test ./contradict -run XXX -bench JudgeCode
func BenchmarkJudgeCode(b *testing.B) {
	pairs := codePairs(b)
	ev := Evidence{E1: 0.9, E6: 0.4, E11: 1}
	b.ResetTimer()
	for range b.N {
		for _, p := range pairs {
			NewText(p[1]).Judge(p[0], ev, DefaultRules)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(pairs)), "µs/pair")
}
