// Package topics clusters memories in each slot space, groups them into topics by
// weighted cross-slot agreement, tracks topic stability and raises divergence
// alerts from the semantic slots.
package topics
