package blast

import (
	"strings"
	"testing"
)

const ginkgoSrc = "package p\n" + // 1
	"\n" + // 2
	"// It(\"not a spec\", func() {})\n" + // 3
	"var _ = Describe(\"Top (x)\", Ordered, func() {\n" + // 4
	"\tBeforeEach(func() { setup(\")\") })\n" + // 5
	"\tIt(`raw \"q\"`, func() {\n" + // 6
	"\t\tcheck('(')\n" + // 7
	"\t})\n" + // 8
	"\tDescribeTable(\"table\", func(n int) {\n" + // 9
	"\t\tuse(n)\n" + // 10
	"\t},\n" + // 11
	"\t\tEntry(\"one\", 1),\n" + // 12
	"\t)\n" + // 13
	"\tIt(name, func() {\n" + // 14
	"\t\tother()\n" + // 15
	"\t})\n" + // 16
	"\t/* It(\"hidden\") */ FIt(\"focused\", func() { f() })\n" + // 17
	"})\n" + // 18
	"\n" + // 19
	"func helper() {}\n" // 20

// The focus of a line is the texts around it: the innermost spec's
// ends it, a container's is followed by its specs'; comments, strings,
// runes and parentheses inside them do not mislead the scanner; a
// title that is not a literal, or a line in no container, has none.
func TestGinkgoFocus(t *testing.T) {
	for _, c := range []struct {
		line int
		want string
		ok   bool
	}{
		{5, `Top \(x\) `, true},
		{7, `Top \(x\) raw "q"$`, true},
		{10, `Top \(x\) table `, true},
		{12, `Top \(x\) table one$`, true},
		{15, "", false}, // It(name, …): not a literal
		{17, `Top \(x\) focused$`, true},
		{3, "", false},
		{20, "", false},
	} {
		got, ok := ginkgoFocus([]byte(ginkgoSrc), c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("line %d: %q %v, want %q %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// FuzzGinkgoNodes: any bytes, no panic, and every node's lines in order.
func FuzzGinkgoNodes(f *testing.F) {
	f.Add([]byte(ginkgoSrc))
	f.Add([]byte("It(\"x\", func() { \"unterminated"))
	f.Add([]byte("Describe(`a\nb`, func() {\n/*"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := strings.Count(string(src), "\n") + 1
		for _, n := range ginkgoNodesOf(src) {
			if n.start < 1 || n.start > lines || n.end != 0 && n.end < n.start {
				t.Fatalf("node %+v in %d lines", n, lines)
			}
		}
		ginkgoFocus(src, 1)
	})
}
