// Package specs is checked by Ginkgo specs.
package specs

// Double is twice n.
func Double(n int) int {
	return n * 2
}

// Negate is -n.
func Negate(n int) int {
	return -n
}
