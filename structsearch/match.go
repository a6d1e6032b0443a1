package structsearch

import (
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Match is one place a pattern matched.
type Match struct {
	Path      string    `json:"path"`
	StartByte int       `json:"start_byte"`
	EndByte   int       `json:"end_byte"`
	StartLine int       `json:"start_line"` // 1-based
	StartCol  int       `json:"start_col"`  // 1-based, in characters
	EndLine   int       `json:"end_line"`
	EndCol    int       `json:"end_col"`
	Text      string    `json:"text"` // the matched source
	Captures  []Capture `json:"captures,omitempty"`

	prefix, suffix string // the rest of the first and last lines
}

// Capture is what one metavariable stood for.
type Capture struct {
	Name string `json:"name"` // with its $ or $$$
	Text string `json:"text"`
}

// binding is a metavariable's capture while matching: a run of sibling
// nodes (one for $NAME).
type binding struct {
	name  string
	multi bool
	nodes []*sitter.Node
}

type matcher struct {
	src      []byte
	bindings []binding
}

// Match returns every node of root (the tree of src) that the pattern
// matches, in document order.
func (p *Pattern) Match(root *sitter.Node, src []byte) []Match {
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(p.query, root)
	m := &matcher{src: src}
	var out []Match
	for {
		qm, ok := qc.NextMatch()
		if !ok {
			break
		}
		for _, c := range qm.Captures {
			n := c.Node
			m.bindings = m.bindings[:0]
			if m.node(p.root, n) {
				out = append(out, m.result(n))
			}
		}
	}
	return out
}

// node matches one pattern node against one tree node.
func (m *matcher) node(p *pnode, n *sitter.Node) bool {
	if p.meta != "" {
		if !n.IsNamed() {
			return false
		}
		return m.bind(p, []*sitter.Node{n})
	}
	if p.kind != n.Type() {
		return false
	}
	if p.leaf {
		return p.text == n.Content(m.src)
	}
	return m.seq(p.kids, m.kids(n))
}

// seq matches pattern children against tree children, letting each $$$
// take as few siblings as it can while the rest still match.
func (m *matcher) seq(ps []*pnode, ns []*sitter.Node) bool {
	if len(ps) == 0 {
		return len(ns) == 0
	}
	p := ps[0]
	if p.multi {
		for k := 0; k <= len(ns); k++ {
			mark := len(m.bindings)
			if m.bind(p, ns[:k]) && m.seq(ps[1:], ns[k:]) {
				return true
			}
			m.bindings = m.bindings[:mark]
		}
		return false
	}
	if len(ns) == 0 {
		return false
	}
	mark := len(m.bindings)
	if m.node(p, ns[0]) && m.seq(ps[1:], ns[1:]) {
		return true
	}
	m.bindings = m.bindings[:mark]
	return false
}

// bind records a capture, or checks it against an earlier capture of the
// same name: equal token for token.
func (m *matcher) bind(p *pnode, nodes []*sitter.Node) bool {
	if p.meta == "_" {
		return true
	}
	for _, b := range m.bindings {
		if b.name == p.meta && b.multi == p.multi {
			return sameTokens(m.tokens(b.nodes), m.tokens(nodes))
		}
	}
	m.bindings = append(m.bindings, binding{name: p.meta, multi: p.multi, nodes: nodes})
	return true
}

// kids lists the children of n that count.
func (m *matcher) kids(n *sitter.Node) []*sitter.Node {
	count := int(n.ChildCount())
	out := make([]*sitter.Node, 0, count)
	for i := 0; i < count; i++ {
		if c := n.Child(i); significant(c, m.src) {
			out = append(out, c)
		}
	}
	return out
}

// tokens lists the leaf texts under nodes, without comments.
func (m *matcher) tokens(nodes []*sitter.Node) []string {
	var out []string
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if strings.Contains(n.Type(), "comment") {
			return
		}
		if n.ChildCount() == 0 {
			if s := n.Content(m.src); strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			walk(n.Child(i))
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return out
}

func sameTokens(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (m *matcher) result(n *sitter.Node) Match {
	start, end := int(n.StartByte()), int(n.EndByte())
	sp, ep := n.StartPoint(), n.EndPoint()
	r := Match{
		StartByte: start, EndByte: end,
		StartLine: int(sp.Row) + 1, StartCol: column(m.src, start, int(sp.Column)),
		EndLine: int(ep.Row) + 1, EndCol: column(m.src, end, int(ep.Column)),
		Text:   string(m.src[start:end]),
		prefix: string(m.src[start-int(sp.Column) : start]),
		suffix: string(m.src[end : end+lineEndAt(m.src[end:])]),
	}
	for _, b := range m.bindings {
		name := "$" + b.name
		if b.multi {
			name = "$$$" + b.name
		}
		text := ""
		if len(b.nodes) > 0 {
			text = string(m.src[b.nodes[0].StartByte():b.nodes[len(b.nodes)-1].EndByte()])
		}
		r.Captures = append(r.Captures, Capture{Name: name, Text: text})
	}
	return r
}

// column turns tree-sitter's byte column at offset off into a 1-based
// character column.
func column(src []byte, off, byteCol int) int {
	lineStart := off - byteCol
	if lineStart < 0 || off > len(src) {
		return byteCol + 1
	}
	return utf8.RuneCount(src[lineStart:off]) + 1
}

func lineEndAt(b []byte) int {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			return i
		}
	}
	return len(b)
}
