package skip

// Skipped lives in testdata and must never be read by the walker.
func Skipped() int {
	x := 1
	return x
}
