package proc

import (
	"strconv"
	"strings"
)

// CommandLine shows a program and its arguments as one line a person can
// read and a shell would split the same way: an argument with a space or
// a shell character is quoted.
func CommandLine(name string, args []string) string {
	parts := []string{name}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`;&|<>(){}*?[]#~!") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
