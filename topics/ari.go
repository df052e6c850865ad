package topics

// AdjustedRandIndex compares two labelings of the same items (Hubert and
// Arabie 1985): 1 for identical partitions up to renaming, about 0 for
// independent ones, negative when worse than chance. Every label value is a
// group, Noise included (as scikit-learn's adjusted_rand_score does). It
// returns 1 when both labelings put everything in one group or everything
// apart. Cost O(n + a·b) for a and b distinct labels. It panics if the
// lengths differ.
func AdjustedRandIndex(a, b []int) float64 {
	if len(a) != len(b) {
		panic("topics: AdjustedRandIndex of labelings of different lengths")
	}
	n := len(a)
	type pair struct{ x, y int }
	cont := map[pair]int{}
	ra, rb := map[int]int{}, map[int]int{}
	for i := range a {
		cont[pair{a[i], b[i]}]++
		ra[a[i]]++
		rb[b[i]]++
	}
	c2 := func(k int) float64 { return float64(k) * float64(k-1) / 2 }
	var index, sa, sb float64
	for _, v := range cont {
		index += c2(v)
	}
	for _, v := range ra {
		sa += c2(v)
	}
	for _, v := range rb {
		sb += c2(v)
	}
	total := c2(n)
	if total == 0 {
		return 1
	}
	expected := sa * sb / total
	maxIndex := (sa + sb) / 2
	if maxIndex == expected {
		return 1
	}
	return (index - expected) / (maxIndex - expected)
}
