package structsearch

import (
	"context"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Match is one place a pattern matched.
type Match struct {
	Path      string    `json:"file"`
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
	// StartByte and EndByte place Text in the file; both are -1 for a
	// $$$ that captured nothing.
	StartByte int `json:"-"`
	EndByte   int `json:"-"`
}

// binding is a metavariable's capture while matching: a run of sibling
// nodes (one for $NAME).
type binding struct {
	name  string
	multi bool
	nodes []tkid
}

// tkid is one child of a tree node that counts when trees are compared: a
// node, or text inside the node that no child covers (a string's content).
type tkid struct {
	n          *sitter.Node // nil for text
	start, end uint32
	kind       *kindInfo // the node's, or for text its parent's
}

type matcher struct {
	src      []byte
	g        *grammar
	bindings []binding
	*meter
	text *fileText // built on the first match
	// lines is the last copy a match made of its lines, of the file's
	// bytes from linesAt: the next match within them shares it.
	lines   string
	linesAt int
	sums    map[sumKey]tokenSum // fingerprints of the nodes compared so far
}

// Match returns every node of root (the tree of src) that the pattern
// matches, or for a sequence every run of statements, in document order.
// It stops with ctx's error when ctx is done, and with an error wrapping
// ErrTooComplex when the file would take more matching than its budget
// (see newMeter); it never returns part of a file's matches.
func (p *Pattern) Match(ctx context.Context, root *sitter.Node, src []byte) ([]Match, error) {
	cands, err := p.candidates(ctx, root, src)
	if err != nil {
		return nil, err
	}
	return p.matchNodes(ctx, root, cands, src)
}

// matchNodes matches the pattern at each candidate (nodes of root): the
// node itself, or for a sequence the statements of the container.
func (p *Pattern) matchNodes(ctx context.Context, root *sitter.Node, cands []*sitter.Node, src []byte) ([]Match, error) {
	m := p.matcher(src, newMeter(ctx, src))
	out := p.run(m, cands)
	switch {
	case m.err == errSteps || m.err == errMatched:
		return nil, overBudget(ctx, p, root, m.meter, len(src))
	case m.err != nil:
		return nil, m.err
	}
	return out, nil
}

func (p *Pattern) matcher(src []byte, mt *meter) *matcher {
	return &matcher{src: src, g: grammarOf(p.Lang.Grammar), meter: mt}
}

// run matches at each candidate until done or stopped (m.err).
func (p *Pattern) run(m *matcher, cands []*sitter.Node) []Match {
	if p.seq {
		return p.matchSeqs(m, cands)
	}
	var out []Match
	for _, n := range cands {
		m.bindings = m.bindings[:0]
		if m.node(p.root, n) {
			out = append(out, m.result(n, n))
		}
		if m.err != nil {
			break
		}
	}
	return out
}

// node matches one pattern node against one tree node.
func (m *matcher) node(p *pnode, n *sitter.Node) bool {
	if !m.step(1) {
		return false
	}
	k := m.g.kind(n)
	if p.meta != "" {
		if !k.named {
			return false
		}
		return m.bind(p, []tkid{{n: n, start: n.StartByte(), end: n.EndByte(), kind: k}})
	}
	if p.kind != k.name {
		return false
	}
	if p.leaf {
		return string(m.src[n.StartByte():n.EndByte()]) == p.text
	}
	return m.seq(p, m.kids(n, k))
}

// list is the matching of a pattern node's children against a list of
// tree children. Each $$$ takes as few siblings as it can while the rest
// still match; where several $$$ could share the siblings out many ways,
// failed is what keeps the search from trying the same split twice.
type list struct {
	m  *matcher
	ps []*pnode
	// free[i] says the pattern children from i on use no metavariable
	// that occurs anywhere else in the pattern, so whether they match
	// from a given tree child does not depend on the captures before.
	free   []bool
	ns     []tkid
	failed map[[2]int]bool // (pattern child, tree child) known not to match
}

func (m *matcher) list(p *pnode, ns []tkid) *list {
	return &list{m: m, ps: p.kids, free: p.free, ns: ns}
}

// seq matches the children of pattern node p against all of ns.
func (m *matcher) seq(p *pnode, ns []tkid) bool {
	return m.list(p, ns).all(0, 0)
}

// all says ps[i:] matches all of ns[j:].
func (l *list) all(i, j int) bool {
	if i == len(l.ps) {
		return j == len(l.ns)
	}
	if l.knownToFail(i, j) {
		return false
	}
	m, p, ns := l.m, l.ps[i], l.ns[j:]
	mark := len(m.bindings)
	if p.multi {
		// The rest needs a tree child for each pattern child that is not
		// a $$$ itself.
		need := l.need(i + 1)
		for k := 0; k <= len(ns)-need && m.step(1); k++ {
			if m.bind(p, ns[:k]) && l.all(i+1, j+k) {
				return true
			}
			m.bindings = m.bindings[:mark]
		}
	} else if len(ns) > 0 && m.one(p, ns[0]) && l.all(i+1, j+1) {
		return true
	}
	m.bindings = m.bindings[:mark]
	l.fail(i, j)
	return false
}

// need counts the pattern children from i on that are not $$$: each takes
// one tree child.
func (l *list) need(i int) int {
	n := 0
	for _, q := range l.ps[i:] {
		if !q.multi {
			n++
		}
	}
	return n
}

func (l *list) knownToFail(i, j int) bool {
	return l.failed != nil && l.failed[[2]int{i, j}]
}

func (l *list) fail(i, j int) {
	if i >= len(l.free) || !l.free[i] {
		return
	}
	if l.failed == nil {
		l.failed = map[[2]int]bool{}
	}
	l.failed[[2]int{i, j}] = true
}

// one matches a pattern child against one tree child: text against text,
// a node against a node.
func (m *matcher) one(p *pnode, t tkid) bool {
	if p.gap || t.n == nil {
		switch {
		case !p.gap || t.n != nil:
			return false
		case p.meta != "":
			return m.bind(p, []tkid{t})
		}
		return string(m.src[t.start:t.end]) == p.text
	}
	return m.node(p, t.n)
}

// bind records a capture, or checks it against an earlier capture of the
// same name: equal token for token.
func (m *matcher) bind(p *pnode, nodes []tkid) bool {
	if p.meta == "_" {
		return true
	}
	for _, b := range m.bindings {
		if b.name == p.meta && b.multi == p.multi {
			return m.sameTokens(b.nodes, nodes)
		}
	}
	m.bindings = append(m.bindings, binding{name: p.meta, multi: p.multi, nodes: nodes})
	return true
}

// kids lists the children of n (of kind k) that count, with the text
// between them that counts.
func (m *matcher) kids(n *sitter.Node, k *kindInfo) []tkid {
	count := int(n.ChildCount())
	m.step(count)
	out := make([]tkid, 0, count)
	at := n.StartByte()
	for i := 0; i < count; i++ {
		c := n.Child(i)
		start, end := c.StartByte(), c.EndByte()
		if t, ok := m.gap(at, start, k); ok {
			out = append(out, t)
		}
		if ck := m.g.kind(c); !ck.comment && (ck.named || countsAsToken(m.src[start:end])) {
			out = append(out, tkid{n: c, start: start, end: end, kind: ck})
		}
		at = max(at, end)
	}
	if t, ok := m.gap(at, n.EndByte(), k); ok {
		out = append(out, t)
	}
	return out
}

// gap is the text in [start, end) of a node of kind k, if it counts (see
// gapText).
func (m *matcher) gap(start, end uint32, k *kindInfo) (tkid, bool) {
	if end <= start {
		return tkid{}, false
	}
	if !k.stringy {
		for start < end && isSpace(m.src[start]) {
			start++
		}
		for end > start && isSpace(m.src[end-1]) {
			end--
		}
		if start == end {
			return tkid{}, false
		}
	}
	return tkid{start: start, end: end, kind: k}, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// maxOwnLines is the most bytes of lines a match copies for itself.
const maxOwnLines = 4 << 10

// result is the match that spans from the start of first to the end of
// last (the same node, but for a sequence). Its texts are substrings of a
// copy of its lines (at most maxOwnLines, and shared by the matches within
// them: those on one line, nested ones), so a result holds what it shows,
// not its files: the stdlib's 18,565 isinstance calls held 68 MB of whole
// files for 2 MB of lines. A longer match's texts are substrings of one
// copy of the file, so that a file's matches never hold more than it
// (32,000 nested parentheses on one line match 32,000 times). Their bytes
// count against a budget all the same, since whoever prints them pays for
// them.
func (m *matcher) result(first, last *sitter.Node) Match {
	if m.text == nil {
		m.text = newFileText(m.src)
	}
	f := m.text
	start, end := int(first.StartByte()), int(last.EndByte())
	m.spendMatched(end - start)
	sp, ep := first.StartPoint(), last.EndPoint()
	ls, le := start-int(sp.Column), f.lineEnd(end)
	text, base, own := f.s, 0, le-ls <= maxOwnLines // text[i-base] is the file's byte i
	if own {
		if ls < m.linesAt || le > m.linesAt+len(m.lines) {
			m.lines, m.linesAt = strings.Clone(f.s[ls:le]), ls
		}
		text, base = m.lines, m.linesAt
	}
	r := Match{
		StartByte: start, EndByte: end,
		StartLine: int(sp.Row) + 1, StartCol: f.column(start, int(sp.Column)),
		EndLine: int(ep.Row) + 1, EndCol: f.column(end, int(ep.Column)),
		Text:   text[start-base : end-base],
		prefix: text[ls-base : start-base],
		suffix: text[end-base : le-base],
	}
	for _, b := range m.bindings {
		name := "$" + b.name
		if b.multi {
			name = "$$$" + b.name
		}
		c := Capture{Name: name, StartByte: -1, EndByte: -1}
		if len(b.nodes) > 0 {
			c.StartByte, c.EndByte = int(b.nodes[0].start), int(b.nodes[len(b.nodes)-1].end)
			if !own || ls <= c.StartByte && c.EndByte <= le {
				c.Text = text[c.StartByte-base : c.EndByte-base]
			} else {
				c.Text = strings.Clone(f.s[c.StartByte:c.EndByte])
			}
		}
		r.Captures = append(r.Captures, c)
	}
	return r
}
