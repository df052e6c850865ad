// Package textdiff prints the unified diff of two small texts (a
// configuration file before and after), for a command to show a change
// before it makes it. It is quadratic in the number of lines: it must not
// be used on data.
package textdiff

import (
	"fmt"
	"strings"
)

// Unified returns a unified diff (3 lines of context) from a to b,
// "" when they are equal. It is quadratic in the number of lines: meant
// for configuration files, not for data.
func Unified(a, b, nameA, nameB string) string {
	if a == b {
		return ""
	}
	ops := editScript(splitLines(a), splitLines(b))
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", nameA, nameB)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start, end := max(k-contextLines, 0), hunkEnd(ops, k)
		writeHunk(&sb, ops[start:end])
		k = end
	}
	return sb.String()
}

// contextLines is how many unchanged lines stand around a change.
const contextLines = 3

// op is one line of an edit script: kept (' '), removed ('-') or added
// ('+'), with its positions in the two texts before it.
type op struct {
	kind byte // ' ', '-', '+'
	line string
	i, j int // positions in x and y before this op
}

// editScript is the shortest edit from x to y, through their longest
// common subsequence; a removal comes before an addition.
func editScript(x, y []string) []op {
	// lcs[i][j]: length of the longest common subsequence of x[i:], y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i, j})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', x[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', y[j], i, j})
			j++
		}
	}
	return ops
}

// hunkEnd is where the hunk holding the change at ops[k] ends: after the
// last change that no more than twice the context separates from the
// one before it, and that change's context.
func hunkEnd(ops []op, k int) int {
	end := k
	for end < len(ops) {
		if ops[end].kind != ' ' {
			end++
			continue
		}
		run := end
		for run < len(ops) && ops[run].kind == ' ' {
			run++
		}
		if run-end > 2*contextLines || run == len(ops) {
			return min(end+contextLines, len(ops))
		}
		end = run
	}
	return end
}

// writeHunk writes one hunk: its header with each side's first line and
// count, then its lines.
func writeHunk(sb *strings.Builder, hunk []op) {
	na, nb := 0, 0
	for _, o := range hunk {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@\n", hunk[0].i+1, na, hunk[0].j+1, nb)
	for _, o := range hunk {
		sb.WriteByte(o.kind)
		sb.WriteString(o.line)
		sb.WriteByte('\n')
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
