package structsearch

import (
	"bytes"
	"context"

	sitter "github.com/smacker/go-tree-sitter"
)

// Partial parsing of Go. A match of any pattern but a sequence lies within
// one top-level declaration, and a top-level declaration parses alone as
// it does in its file (after the package clause): Go's grammar has no
// context across declarations. For a file known to parse without a syntax
// error, only the package clause and the declarations that can hold a
// match (each holds every token of the pattern: MayMatch of its text) are
// parsed. A declaration starts at a line that starts with func, type,
// var, const or import outside any bracket, string or comment; whatever
// else stands at the top level (tree-sitter reads statements there too)
// goes with the part it follows, and the tree is checked that no node at
// the top spans two parts.

// goDecls splits src into its part before the first declaration (the
// package clause, and what comes before it) and its declarations. It says
// false for source it cannot read so: a string or comment left open, a
// bracket closed that was never opened or left open, no package clause.
func goDecls(src []byte) (head span, decls []span, ok bool) {
	n := len(src)
	depth := 0
	var starts []int
	pkg := false
	for i := 0; i < n; {
		if (i == 0 || src[i-1] == '\n') && depth == 0 && wordByte(src[i]) {
			switch firstWord(src, i) {
			case "func", "type", "var", "const", "import":
				if !pkg {
					return head, nil, false
				}
				starts = append(starts, i)
			case "package":
				if pkg || len(starts) > 0 {
					return head, nil, false
				}
				pkg = true
			}
		}
		c := src[i]
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
			i++
		case c == ')' || c == ']' || c == '}':
			if depth--; depth < 0 {
				return head, nil, false
			}
			i++
		case c == '/' && i+1 < n && src[i+1] == '/':
			i = lineEnd(src, i)
		case c == '/' && i+1 < n && src[i+1] == '*':
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				return head, nil, false
			}
			i += 2 + j + 2
		case c == '"' || c == '\'':
			j := i + 1
			for j < n && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= n || src[j] != c {
				return head, nil, false
			}
			i = j + 1
		case c == '`':
			j := i + 1
			for j < n && src[j] != '`' {
				j++
			}
			if j >= n {
				return head, nil, false
			}
			i = j + 1
		case wordByte(c):
			for i < n && wordByte(src[i]) {
				i++
			}
		default:
			i++
		}
	}
	if depth != 0 || !pkg {
		return head, nil, false
	}
	head.end = n
	if len(starts) > 0 {
		head.end = starts[0]
	}
	for k, s := range starts {
		e := n
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		decls = append(decls, span{s, e})
	}
	return head, decls, true
}

// matchDecls is Match for a Go file known to parse without a syntax error,
// parsing only its head and the declarations that can hold a match. It
// says false when the file must be parsed whole instead.
func (p *Pattern) matchDecls(ctx context.Context, src []byte) ([]Match, bool, error) {
	head, decls, ok := goDecls(src)
	if !ok {
		return nil, false, nil
	}
	parts := []span{head}
	// tree-sitter reads statements at the top level too (a fragment):
	// the head may hold a match.
	some := p.MayMatch(src[head.start:head.end])
	for _, d := range decls {
		if p.MayMatch(src[d.start:d.end]) {
			some = true
			if last := &parts[len(parts)-1]; last.end == d.start {
				last.end = d.end
			} else {
				parts = append(parts, d)
			}
		}
	}
	if !some {
		return nil, true, nil // no declaration holds every token
	}
	return p.matchRanges(ctx, src, rangesOf(src, parts), func(root *sitter.Node) bool { return childrenWithin(root, parts) })
}

// childrenWithin says whether each child of root lies within one of parts
// (sorted): a declaration tree-sitter read on past its part would not.
func childrenWithin(root *sitter.Node, parts []span) bool {
	k := 0
	for i := 0; i < int(root.ChildCount()); i++ {
		c := root.Child(i)
		start, end := int(c.StartByte()), int(c.EndByte())
		for k < len(parts) && parts[k].end <= start {
			k++
		}
		if k == len(parts) || start < parts[k].start || end > parts[k].end {
			return false
		}
	}
	return true
}
