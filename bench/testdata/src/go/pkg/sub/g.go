package sub

// Map applies f to every element of xs and returns the results in order.
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// Len reports the number of elements stored in the list.
func (l List[T]) Len() int {
	n := len(l.items)
	return n
}

// List is generic.
type List[T any] struct{ items []T }
