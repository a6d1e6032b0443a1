package structsearch

import (
	"fmt"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
	"cchub/syntax"
)

// wrap is one place a fragment can stand in a language: the text around it
// and a name for messages.
type wrap struct {
	name           string
	prefix, suffix string
	// indent, for Python, is put before every line of the fragment.
	indent string
}

// contexts lists, per language, where a pattern is tried, in order:
// expression, statement, member, top level, and places only some fragments
// stand (a Go type or switch case, a Rust struct field). Compile says which
// reading wins.
var contexts = map[string][]wrap{
	lang.Go: {
		{name: "expression", prefix: "package cchub\nvar _ = ", suffix: "\n"},
		{name: "statement", prefix: "package cchub\nfunc cchub() {\n", suffix: "\n}\n"},
		{name: "type", prefix: "package cchub\nvar _ ", suffix: "\n"},
		{name: "struct member", prefix: "package cchub\ntype cchub struct {\n", suffix: "\n}\n"},
		{name: "top level", prefix: "package cchub\n", suffix: "\n"},
		{name: "file", prefix: "", suffix: "\n"},
		{name: "switch case", prefix: "package cchub\nfunc cchub() {\nswitch {\n", suffix: "\n}\n}\n"},
	},
	lang.Python: {
		{name: "expression", prefix: "_ = ", suffix: "\n"},
		{name: "statement", prefix: "", suffix: "\n"},
		{name: "function body", prefix: "def cchub():\n", suffix: "\n", indent: "    "},
		{name: "class member", prefix: "class cchub:\n", suffix: "\n", indent: "    "},
	},
	lang.JavaScript: jsContexts,
	lang.TypeScript: jsContexts,
	lang.TSX:        jsContexts,
	lang.Rust: {
		{name: "expression", prefix: "fn cchub() { let _ = ", suffix: "; }\n"},
		{name: "statement", prefix: "fn cchub() {\n", suffix: "\n}\n"},
		{name: "impl member", prefix: "impl cchub {\n", suffix: "\n}\n"},
		{name: "struct member", prefix: "struct Cchub {\n", suffix: "\n}\n"},
		{name: "top level", prefix: "", suffix: "\n"},
	},
	lang.Java: {
		{name: "expression", prefix: "class Cchub { Object cchub = ", suffix: "; }\n"},
		{name: "statement", prefix: "class Cchub { void cchub() {\n", suffix: "\n} }\n"},
		{name: "class member", prefix: "class Cchub {\n", suffix: "\n}\n"},
		{name: "top level", prefix: "", suffix: "\n"},
	},
	"c": {
		{name: "expression", prefix: "void cchub(void) { cchub_ = ", suffix: "; }\n"},
		{name: "statement", prefix: "void cchub(void) {\n", suffix: "\n}\n"},
		{name: "struct member", prefix: "struct cchub {\n", suffix: "\n};\n"},
		{name: "top level", prefix: "", suffix: "\n"},
	},
	lang.Cpp: {
		{name: "expression", prefix: "void cchub() { cchub_ = ", suffix: "; }\n"},
		{name: "statement", prefix: "void cchub() {\n", suffix: "\n}\n"},
		{name: "class member", prefix: "class cchub {\n", suffix: "\n};\n"},
		{name: "top level", prefix: "", suffix: "\n"},
	},
}

var jsContexts = []wrap{
	{name: "expression", prefix: "cchub = ", suffix: ";\n"},
	{name: "statement", prefix: "function cchub() {\n", suffix: "\n}\n"},
	{name: "class member", prefix: "class cchub {\n", suffix: "\n}\n"},
	{name: "top level", prefix: "", suffix: "\n"},
}

// misreadKinds are node kinds a context may produce that are rarely what a
// pattern's author meant (a call read as a type conversion, an object
// literal read as a labelled block, a function declaration read as a
// function expression). A context that yields one is used only if no other
// context parses.
var misreadKinds = map[string]map[string]bool{
	lang.Go:         {"type_conversion_expression": true},
	lang.JavaScript: jsMisreads,
	lang.TypeScript: jsMisreads,
	lang.TSX:        jsMisreads,
}

var jsMisreads = map[string]bool{
	"labeled_statement":   true,
	"function_expression": true,
	"function":            true,
	"generator_function":  true,
	"class":               true,
}

// memberOnly lists, per language, kinds a statement context yields for
// what can only be a class member, with the keywords that give it away:
// `private int $X;` is a field, not a local variable.
var memberOnly = map[string]map[string][]string{
	lang.Java: {"local_variable_declaration": {"private", "public", "protected", "static", "abstract"}},
	lang.Cpp:  {"declaration": {"virtual"}},
}

// place puts fragment into w, returning the source and the byte range the
// fragment occupies in it.
func (w wrap) place(fragment string) (src string, start, end int) {
	if w.indent != "" {
		fragment = w.indent + strings.ReplaceAll(fragment, "\n", "\n"+w.indent)
		return w.prefix + fragment + w.suffix, len(w.prefix) + len(w.indent), len(w.prefix) + len(fragment)
	}
	return w.prefix + fragment + w.suffix, len(w.prefix), len(w.prefix) + len(fragment)
}

// reading is one context's parse of a fragment: a pattern, or why not.
type reading struct {
	p   *Pattern
	why string // the context does not hold the fragment
	// loose readings are second choices: parsed around $$$ the grammar
	// did not expect, or holding the fragment only without its trailing
	// separator.
	loose bool
	// misread says why the parse is probably not what the author meant.
	misread string
}

// compileIn parses the fragment in one wrapping context. A fragment with a
// line that is only a $$$ is read first with that line ended by a `;` (see
// terminateGaps), and as written if that does not parse.
func compileIn(st *steps, frag string, w wrap, language *syntax.Language, g *grammar) reading {
	if v := terminateGaps(frag, language.Name); v != frag {
		if r := readIn(st, v, w, language, g); r.p != nil && r.misread == "" || st.stopped() {
			return r
		}
	}
	return readIn(st, frag, w, language, g)
}

// readIn parses the fragment in one wrapping context: as one node, or as
// a sequence of statements.
func readIn(st *steps, frag string, w wrap, language *syntax.Language, g *grammar) reading {
	if st.stopped() {
		return reading{why: st.err.Error()}
	}
	src, start, end := w.place(frag)
	// A parser of its own, closed here: go-tree-sitter may arm a parser's
	// cancel flag after ParseCtx returned (see syntax's parse), which
	// would refuse this parser's next parse, and there is none.
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(language.Grammar)
	tree, err := parser.ParseCtx(st.ctx, nil, []byte(src))
	if err != nil {
		st.stopped()
		return reading{why: err.Error()}
	}
	defer tree.Close()
	root := tree.RootNode()
	loose := false
	if root.HasError() {
		if bad := firstError(st, root, []byte(src)); bad != nil {
			return reading{why: "syntax error " + errorWhere(bad, start, frag)}
		}
		loose = true
	}
	n, exact := spanning(root, []byte(src), start, end)
	var p *Pattern
	switch _, run, why := siblingRun(st, root, n, []byte(src), start, end, language.Name, g); {
	case st.stopped():
		return reading{why: st.err.Error()}
	case run != nil:
		p = &Pattern{Lang: language, Context: w.name, seq: true, root: buildSequence(st, run, []byte(src), g)}
	case why != "":
		return reading{why: why}
	case n == nil:
		return reading{why: "not one node, nor statements of one block"}
	default:
		loose = loose || !exact
		p = &Pattern{Lang: language, Context: w.name, root: build(st, n, []byte(src), g)}
	}
	if st.stopped() {
		return reading{why: st.err.Error()}
	}
	if kw := keywordAsName(p.root, g); kw != "" && reservedWords[language.Name] {
		return reading{why: fmt.Sprintf("read the keyword `%s` as a name", kw)}
	}
	r := reading{p: p, loose: loose}
	if p.seq {
		for _, el := range p.root.kids {
			if r.misread = misreading(language.Name, el, g); r.misread != "" {
				break
			}
		}
	} else {
		r.misread = misreading(language.Name, p.root, g)
	}
	return r
}

// firstError returns the first error or missing node of the parse that is
// not a hole: an ERROR that holds nothing but one $$$ metavariable, or a
// `;` the parser supplied right after one. A $$$ stands for any number of
// statements, members or parameters, where the grammar expects one of
// those and finds a lone name.
func firstError(st *steps, root *sitter.Node, src []byte) *sitter.Node {
	var bad *sitter.Node
	var find func(n *sitter.Node)
	find = func(n *sitter.Node) {
		if bad != nil || st.stop() || !n.HasError() && !n.IsMissing() {
			return
		}
		switch {
		case n.IsError():
			if _, multi, ok := metaText(strings.TrimSpace(n.Content(src))); ok && multi {
				return
			}
			bad = n
			return
		case n.IsMissing():
			if n.Type() == ";" && endsWithMulti(string(src[:n.StartByte()])) {
				return
			}
			bad = n
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			find(n.Child(i))
		}
	}
	find(root)
	return bad
}

// endsWithMulti says s ends with a $$$ metavariable, spaces aside.
func endsWithMulti(s string) bool {
	s = strings.TrimRight(s, " \t\r\n")
	i := strings.LastIndex(s, expando+expando+expando)
	if i < 0 {
		return false
	}
	_, multi, ok := metaText(s[i:])
	return ok && multi
}

// errorWhere describes an error or missing node in the fragment's own
// coordinates.
func errorWhere(bad *sitter.Node, start int, frag string) string {
	off := int(bad.StartByte()) - start
	if off < 0 || off > len(frag) {
		return "at its end: the pattern stops before the construct it starts is complete"
	}
	line := 1 + strings.Count(frag[:off], "\n")
	col := off - strings.LastIndex(frag[:off], "\n")
	near := strings.ReplaceAll(frag[off:min(len(frag), off+20)], expando, "$")
	if bad.IsMissing() {
		return fmt.Sprintf("at %d:%d (missing %q before `%s`)", line, col, bad.Type(), near)
	}
	return fmt.Sprintf("at %d:%d near `%s`", line, col, near)
}

// spanning returns the deepest node covering exactly the fragment at
// [start, end) of src, or nil. Failing an exact cover, a node may leave out
// the fragment's trailing separators (a field's `;`, which the grammar
// gives to the enclosing body) or take in the newline after it (a
// preprocessor directive ends with its line); exact says which.
func spanning(root *sitter.Node, src []byte, start, end int) (n *sitter.Node, exact bool) {
	if n := deepestAt(root, uint32(start), uint32(end), uint32(end)); n != nil {
		return n, true
	}
	lo := start + len(strings.TrimRight(string(src[start:end]), " \t\r\n;,"))
	hi := end + len(src[end:]) - len(strings.TrimLeft(string(src[end:]), " \t\r\n"))
	if lo <= start {
		return nil, false
	}
	return deepestAt(root, uint32(start), uint32(lo), uint32(hi)), false
}

// deepestAt returns the deepest node that starts at start and ends in
// [lo, hi].
func deepestAt(n *sitter.Node, start, lo, hi uint32) *sitter.Node {
	var found *sitter.Node
	for n != nil {
		if n.StartByte() == start && n.EndByte() >= lo && n.EndByte() <= hi {
			found = n
		}
		var next *sitter.Node
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			if c.StartByte() <= start && c.EndByte() >= lo {
				next = c
				break
			}
		}
		n = next
	}
	return found
}

// misreading says why a parse is probably not the fragment's intended
// shape, or "" if nothing suggests so.
func misreading(language string, root *pnode, g *grammar) string {
	if misreadKinds[language][root.kind] {
		return "read as " + root.kind
	}
	if words := memberOnly[language][root.kind]; words != nil {
		for _, k := range root.kids {
			for _, leaf := range append([]*pnode{k}, k.kids...) {
				if leaf.leaf && slices.Contains(words, leaf.text) {
					return fmt.Sprintf("read as a %s, which `%s` cannot start", root.kind, leaf.text)
				}
			}
		}
	}
	if kw := keywordAsName(root, g); kw != "" {
		return fmt.Sprintf("read the keyword `%s` as a name", kw)
	}
	return ""
}

// reservedWords are the languages whose keywords are never names, so a
// reading that takes one for a name is wrong, not merely unlikely.
var reservedWords = map[string]bool{"go": true}

// keywordAsName returns the first identifier in the pattern whose text is
// one of the grammar's keywords, or "".
func keywordAsName(n *pnode, g *grammar) string {
	if n.leaf && (strings.Contains(n.kind, "identifier") || strings.HasSuffix(n.kind, "_name")) && g.keywords[n.text] {
		return n.text
	}
	for _, k := range n.kids {
		if kw := keywordAsName(k, g); kw != "" {
			return kw
		}
	}
	return ""
}
