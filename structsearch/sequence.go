package structsearch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
)

// A pattern of several statements is a sequence: it matches that many
// consecutive statements of one block, wherever the block is. This file
// finds, in a pattern's parse, the run of sibling statements that is the
// fragment, and matches such runs against the children of blocks.

// seqContainers lists, per language, the kinds of node whose children a
// sequence matches runs of: blocks and bodies of statements, case clauses,
// bodies of members, and whole files. A caseLike container opens with a
// header that ends in ':' (`case x:`), which is not one of the statements.
var seqContainers = map[string]map[string]bool{ // kind → caseLike
	lang.Go: {
		"block": false, "source_file": false, "field_declaration_list": false,
		"expression_case": true, "type_case": true, "communication_case": true, "default_case": true,
	},
	lang.Python:     {"module": false, "block": false},
	lang.JavaScript: jsContainers,
	lang.TypeScript: jsContainers,
	lang.TSX:        jsContainers,
	lang.Rust:       {"block": false, "source_file": false, "declaration_list": false, "field_declaration_list": false},
	lang.Java: {
		"block": false, "constructor_body": false, "program": false, "class_body": false,
		"interface_body": false, "enum_body_declarations": false, "switch_block_statement_group": true,
	},
	"c": cContainers,
	lang.Cpp: func() map[string]bool {
		m := map[string]bool{"declaration_list": false}
		for k, v := range cContainers {
			m[k] = v
		}
		return m
	}(),
}

var jsContainers = map[string]bool{
	"program": false, "statement_block": false, "class_body": false,
	"switch_case": true, "switch_default": true,
}

var cContainers = map[string]bool{
	"compound_statement": false, "translation_unit": false, "field_declaration_list": false,
	"case_statement": true,
	// A conditional's lines stand between its directives.
	"preproc_if": false, "preproc_ifdef": false, "preproc_else": false, "preproc_elif": false, "preproc_elifdef": false,
}

// headerKinds are named children of a container that are no statement of
// it: a Java case label, a Rust block label.
var headerKinds = map[string]bool{"switch_label": true, "label": true}

// headerFields are the fields of a container's children that are no
// statements of it: a case's value, type or channel operation, an #ifdef's
// name, an #if's condition and its #else.
var headerFields = map[string]bool{
	"value": true, "type": true, "communication": true,
	"name": true, "condition": true, "alternative": true, "label": true,
}

// bodyKids returns the children of container n that a sequence runs over:
// its named children but comments, those in a header field or of a header
// kind, and, in a caseLike container, those before its last ':'.
func bodyKids(n *sitter.Node, g *grammar, caseLike bool) []*sitter.Node {
	if n.ChildCount() == 0 {
		return nil
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	var out []*sitter.Node
	if !c.GoToFirstChild() {
		return nil
	}
	for {
		kid := c.CurrentNode()
		k := g.kind(kid)
		switch {
		case caseLike && !k.named && k.name == ":":
			out = out[:0]
		case !k.named || k.comment || headerKinds[k.name]:
		default:
			if !headerFields[c.CurrentFieldName()] {
				out = append(out, kid)
			}
		}
		if !c.GoToNextSibling() {
			return out
		}
	}
}

// siblingRun looks for the fragment at [start, end) of src as a run of at
// least two sibling nodes. n is the node spanning the fragment, if any: a
// fragment that is one node is a run only when that node is a container
// whose body is the fragment (a file's, a Python block's). It returns the
// parent and the run; a run whose parent is no container, or that holds
// more than the parent's body, comes back with why it cannot be a
// sequence.
func siblingRun(st *steps, root, n *sitter.Node, src []byte, start, end int, language string, g *grammar) (parent *sitter.Node, run []*sitter.Node, why string) {
	lo := start + len(strings.TrimRight(string(src[start:end]), " \t\r\n;,"))
	hi := end + len(src[end:]) - len(strings.TrimLeft(string(src[end:]), " \t\r\n"))
	if lo <= start {
		return nil, nil, ""
	}
	parent = n
	if parent == nil {
		// The deepest node that holds the whole fragment.
		parent = root
		for {
			var next *sitter.Node
			for i := 0; i < int(parent.ChildCount()) && !st.stop(); i++ {
				c := parent.Child(i)
				if int(c.StartByte()) <= start && int(c.EndByte()) >= lo {
					next = c
					break
				}
			}
			if next == nil {
				break
			}
			parent = next
		}
	} else if _, ok := seqContainers[language][g.kind(n).name]; !ok {
		return nil, nil, ""
	}
	// The children the fragment overlaps must lie inside it, the first
	// starting where it starts and the last ending where it ends.
	var over []*sitter.Node
	for i := 0; i < int(parent.ChildCount()); i++ {
		if st.stop() {
			return nil, nil, ""
		}
		c := parent.Child(i)
		if int(c.EndByte()) <= start || int(c.StartByte()) >= lo {
			continue
		}
		if int(c.StartByte()) < start || int(c.EndByte()) > hi {
			return nil, nil, ""
		}
		over = append(over, c)
	}
	if len(over) == 0 || int(over[0].StartByte()) != start || int(over[len(over)-1].EndByte()) < lo {
		return nil, nil, ""
	}
	for _, c := range over {
		if significant(c, src, g) {
			run = append(run, c)
		}
	}
	if len(run) < 2 {
		return nil, nil, ""
	}
	kind := g.kind(parent).name
	caseLike, ok := seqContainers[language][kind]
	if !ok {
		return parent, nil, fmt.Sprintf("%s side by side in %s, which cchub does not match as a sequence (it does statements in a block or body, members in a body, top-level declarations in a file)",
			describeRun(run, g), article(kind))
	}
	// Both lists are in the order of the source: one pass over them both
	// (looking each up in body took time quadratic in a long sequence).
	body := bodyKids(parent, g, caseLike)
	j := 0
	for _, c := range run {
		if st.stop() {
			return nil, nil, ""
		}
		for j < len(body) && body[j].StartByte() < c.StartByte() {
			j++
		}
		inBody := false
		for k := j; k < len(body) && body[k].StartByte() == c.StartByte(); k++ {
			if body[k].Equal(c) {
				inBody = true
				break
			}
		}
		if !inBody {
			if n != nil {
				return nil, nil, "" // the container itself, header and all
			}
			return parent, nil, fmt.Sprintf("%s in %s, of which `%s` is no statement: a sequence holds whole statements (or members) of one block",
				describeRun(run, g), article(kind), unexpand(c.Content(src)))
		}
	}
	return parent, run, ""
}

// describeRun says what a run of siblings is, for messages: "2 nodes
// (if_statement, return_statement)".
func describeRun(run []*sitter.Node, g *grammar) string {
	var kinds []string
	for _, c := range run {
		kinds = append(kinds, g.kind(c).name)
	}
	return fmt.Sprintf("%d nodes (%s)", len(run), strings.Join(kinds, ", "))
}

func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// buildSequence turns a run of sibling statements into the pattern root of
// a sequence: one element per statement. A statement that is nothing but a
// metavariable and its `;` (C's `$X;`, `$$$;`) is that metavariable: any
// one statement, or any statements.
func buildSequence(st *steps, run []*sitter.Node, src []byte, g *grammar) *pnode {
	root := &pnode{kind: "sequence"}
	for _, c := range run {
		el := build(st, c, src, g)
		if el.meta == "" {
			t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.Content(src)), ";"))
			if name, multi, ok := metaText(t); ok && wrapsOnly(c, src, g, t) {
				el = &pnode{kind: g.kind(c).name, meta: name, multi: multi}
			}
		}
		root.kids = append(root.kids, el)
	}
	return root
}

// wrapsOnly says n's one significant child has the text t.
func wrapsOnly(n *sitter.Node, src []byte, g *grammar, t string) bool {
	only := soleChild(n, src, g)
	return only != nil && strings.TrimSpace(only.Content(src)) == t
}

// terminateGaps ends each line of the fragment that is nothing but a $$$
// metavariable with a `;`, in the languages whose statements end with one:
// there a `$$$` line followed by `p = NULL;` reads as the declaration
// `$$$ p = NULL;` (C, C++, Java), or does not parse (Rust). A fragment
// whose $$$ line stands in a list (arguments) does not parse with the `;`,
// and is read as written.
func terminateGaps(frag, language string) string {
	if language == lang.Go || language == lang.Python {
		return frag
	}
	lines := strings.Split(frag, "\n")
	changed := false
	for i, l := range lines {
		t := strings.TrimRight(l, " \t\r")
		if _, multi, ok := metaText(strings.TrimSpace(t)); ok && multi {
			lines[i] = t + ";" + l[len(t):]
			changed = true
		}
	}
	if !changed {
		return frag
	}
	return strings.Join(lines, "\n")
}

// matchSeqs matches a sequence pattern against the bodies of the
// candidate containers. In each body the runs are found leftmost first and
// do not overlap: after a match the search goes on after its last
// statement. A $$$ takes as few statements as it can, except at the ends of
// the pattern: a leading $$$ reaches back to the start of the body and a
// trailing one to its end, so such a pattern matches at most once per
// body. It gives up, leaving the reason in m.err, when the budget is spent
// or the context done.
func (p *Pattern) matchSeqs(m *matcher, cands []*sitter.Node) []Match {
	leading := p.root.kids[0].multi
	conts := seqContainers[p.Lang.Name]
	var out []Match
	for _, c := range cands {
		caseLike, ok := conts[m.g.kind(c).name]
		if !ok {
			continue
		}
		var body []tkid
		for _, b := range bodyKids(c, m.g, caseLike) {
			body = append(body, tkid{n: b, start: b.StartByte(), end: b.EndByte(), kind: m.g.kind(b)})
		}
		if !m.step(len(body)) {
			return nil
		}
		l := m.list(p.root, body)
		for i := 0; i < len(body) && m.err == nil; {
			m.bindings = m.bindings[:0]
			n, ok := l.prefix(0, i)
			if ok && n > 0 {
				out = append(out, m.result(body[i].n, body[i+n-1].n))
				i += n
			} else {
				i++
			}
			if leading {
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(a.StartByte, b.StartByte), cmp.Compare(a.EndByte, b.EndByte))
	})
	return out
}

// prefix matches ps[i:] against the first statements of ns[j:] and says
// how many statements they took.
func (l *list) prefix(i, j int) (int, bool) {
	if i == len(l.ps) {
		return 0, true
	}
	if l.knownToFail(i, j) {
		return 0, false
	}
	m, p, ns := l.m, l.ps[i], l.ns[j:]
	mark := len(m.bindings)
	switch {
	case p.multi && i == len(l.ps)-1:
		// Trailing: the rest of the body.
		if m.bind(p, ns) {
			return len(ns), true
		}
	case p.multi:
		need := l.need(i + 1)
		for k := 0; k <= len(ns)-need && m.step(1); k++ {
			if m.bind(p, ns[:k]) {
				if r, ok := l.prefix(i+1, j+k); ok {
					return k + r, true
				}
			}
			m.bindings = m.bindings[:mark]
		}
	case len(ns) > 0 && m.element(p, ns[0]):
		if r, ok := l.prefix(i+1, j+1); ok {
			return 1 + r, true
		}
	}
	m.bindings = m.bindings[:mark]
	l.fail(i, j)
	return 0, false
}

// element matches one element of a sequence against one statement. An
// element that is an expression also matches a statement that is nothing
// but that expression: Rust's `f()` as the last line of a pattern matches
// `f();`.
func (m *matcher) element(p *pnode, t tkid) bool {
	mark := len(m.bindings)
	if m.one(p, t) {
		return true
	}
	m.bindings = m.bindings[:mark]
	if p.meta != "" || p.gap || p.kind == "expression_statement" || t.n == nil || t.kind.name != "expression_statement" {
		return false
	}
	kids := m.kids(t.n, t.kind)
	if len(kids) != 1 || kids[0].n == nil {
		return false
	}
	if m.node(p, kids[0].n) {
		return true
	}
	m.bindings = m.bindings[:mark]
	return false
}
