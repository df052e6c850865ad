package pkg

// TestHelper builds a value the tests share across many cases.
func TestHelper() int {
	x := 1
	return x
}
