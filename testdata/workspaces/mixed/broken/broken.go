package broken

// Good parses fine.
func Good() int {
	return 1
}

func Bad( {
	x := [1, 2
}

// After still parses.
func After(s string) string {
	return s
}
