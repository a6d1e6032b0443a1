package blast

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"cchub/codegraph"
	"cchub/lang"
)

// Ginkgo: specs are closures in a test file's top level (var _ =
// Describe("Calc", func() { It("doubles", func() { … }) })), run by a
// test calling RunSpecs. A changed or reached line inside a spec selects
// that spec with --ginkgo.focus (the texts of its containers and its
// own, as Ginkgo joins them); inside a container but no spec (a
// BeforeEach, a table's body), the container's specs. A line outside
// every container, a title that is not a string literal, or a package
// with no test calling RunSpecs keeps the rule for top-level lines: the
// package whole.

var (
	ginkgoImport = regexp.MustCompile(`"github\.com/onsi/ginkgo(/v2)?"`)
	ginkgoEntry  = regexp.MustCompile(`\bRunSpecs\(`)
)

// ginkgoNodes are the calls whose first argument is a container's or a
// spec's text.
var ginkgoNodes = map[string]bool{}

// ginkgoSpecs are the nodes that are specs (the rest contain them).
var ginkgoSpecs = map[string]bool{}

func init() {
	for _, p := range []string{"", "F", "P", "X"} {
		for _, c := range []string{"Describe", "Context", "When", "DescribeTable", "DescribeTableSubtree"} {
			ginkgoNodes[p+c] = true
		}
		for _, s := range []string{"It", "Specify", "Entry"} {
			ginkgoNodes[p+s] = true
			ginkgoSpecs[p+s] = true
		}
	}
}

// ginkgoNode is one container or spec call of a file, its text and its
// lines.
type ginkgoNode struct {
	spec       bool
	text       string
	literal    bool // its text is a string literal
	start, end int
}

// ginkgoNodesOf reads the Ginkgo calls of Go source src: a small
// scanner of Go's tokens (comments, strings, runes skipped) that pairs
// each call's parentheses.
func ginkgoNodesOf(src []byte) []ginkgoNode {
	type open struct {
		node int // index in nodes, -1 for a plain parenthesis
	}
	var nodes []ginkgoNode
	var stack []open
	line := 1
	s := string(src)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nodes
			}
			line += strings.Count(s[i:i+2+end+2], "\n")
			i += 2 + end + 2
		case c == '"' || c == '`' || c == '\'':
			j := skipLiteral(s, i)
			line += strings.Count(s[i:j], "\n")
			i = j
		case c == '(':
			stack = append(stack, open{node: -1})
			i++
		case c == ')':
			if n := len(stack); n > 0 {
				if top := stack[n-1]; top.node >= 0 {
					nodes[top.node].end = line
				}
				stack = stack[:n-1]
			}
			i++
		case c == '_' || c < 0x80 && unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] < 0x80 && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])))) {
				j++
			}
			word := s[i:j]
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if ginkgoNodes[word] && k < len(s) && s[k] == '(' && (i == 0 || s[i-1] != '.' || strings.HasSuffix(s[:i], "ginkgo.")) {
				n := ginkgoNode{spec: ginkgoSpecs[word], start: line}
				// Its text: the first argument, when a string literal.
				a := k + 1
				for a < len(s) && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r') {
					a++
				}
				if a < len(s) && (s[a] == '"' || s[a] == '`') {
					e := skipLiteral(s, a)
					if t, err := strconv.Unquote(s[a:e]); err == nil {
						if e2 := skipSpace(s, e); e2 < len(s) && (s[e2] == ',' || s[e2] == ')') {
							n.text, n.literal = t, true
						}
					}
				}
				nodes = append(nodes, n)
				stack = append(stack, open{node: len(nodes) - 1})
				line += strings.Count(s[j:k+1], "\n")
				i = k + 1
				continue
			}
			i = j
		default:
			i++
		}
	}
	return nodes
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipLiteral returns the index past the string, raw string or rune
// literal at s[i].
func skipLiteral(s string, i int) int {
	q := s[i]
	j := i + 1
	for j < len(s) {
		switch {
		case s[j] == '\\' && q != '`':
			j += 2
			continue
		case s[j] == q:
			return j + 1
		case s[j] == '\n' && q != '`':
			return j // not Go: end it at the line
		}
		j++
	}
	return min(j, len(s))
}

// ginkgoFocus is the focus that runs the specs holding line: the texts
// of the nodes around it, outermost first, up to the innermost spec (or
// the innermost container when no spec holds it); ok is false when no
// node holds the line or a text is not a literal.
func ginkgoFocus(src []byte, line int) (focus string, ok bool) {
	return focusOf(ginkgoNodesOf(src), line)
}

// focusOf is ginkgoFocus over a file's nodes.
func focusOf(nodes []ginkgoNode, line int) (focus string, ok bool) {
	var texts []string
	spec := false
	for _, n := range nodes {
		if n.start > line || line > n.end || n.end == 0 {
			continue
		}
		if !n.literal {
			return "", false
		}
		if n.text != "" { // Ginkgo leaves empty texts out of a spec's
			texts = append(texts, n.text)
		}
		if n.spec {
			spec = true
			break // the innermost spec: what is inside it is its own
		}
	}
	if len(texts) == 0 {
		return "", false
	}
	// Ginkgo matches the focus against the suite's description, a
	// space, and the spec's texts joined by spaces: a spec's ends the
	// string; a container's is followed by its specs'.
	focus = regexp.QuoteMeta(strings.Join(texts, " "))
	if spec {
		return focus + "$", true
	}
	return focus + " ", true
}

// ginkgoType marks the made-up definition that stands for the specs a
// focus selects (its Name is the focus, a regular expression).
const ginkgoType = "\x00ginkgo"

// claimTop selects, for a top-level line of a Ginkgo test file, the
// specs holding it; false when the line is not in one (the caller
// widens as for any top-level line).
func (g *goTest) claimTop(s *selector, p string, line int, sure bool, why string) bool {
	if lang.NameOf(p) != lang.Go || !g.testFile(p) || g.read == nil {
		return false
	}
	st := g.suitesOf(path.Dir(p))
	if !st.frameworks[frameworkGinkgo] || len(st.ginkgoRuns) == 0 {
		return false
	}
	nodes, ok := g.ginkgo[p]
	if !ok { // read and scanned once per file, however many lines ask
		if src, err := g.read(p); err == nil && ginkgoImport.Match(src) {
			nodes = ginkgoNodesOf(src)
		}
		g.ginkgo[p] = nodes
	}
	focus, ok := focusOf(nodes, line)
	if !ok {
		return false
	}
	s.addTest(g, codegraph.Def{Name: focus, Type: ginkgoType, Kind: "spec", Path: p, Start: line, End: line, Language: lang.Go}, sure, why)
	return true
}
