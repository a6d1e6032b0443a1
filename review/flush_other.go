//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package review

// flushInput would throw away keys typed ahead; here it cannot, so a
// key pressed before the question was on screen may answer it.
func flushInput(int) {}
