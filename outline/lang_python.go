package outline

import (
	"strings"

	"cchub/lang"
	"cchub/syntax"
)

func init() {
	langSpecs[lang.Python] = langSpec{
		walk:      func(x *extractor, top []*syntax.Node) []*Symbol { return x.pyBlock(top, false) },
		headerEnd: ":",
		blockEnd:  (*extractor).lastCodeLine,
	}
}

// pyBlock outlines the statements of a module, class body or module-level
// compound statement. Everything that runs when the module is imported is
// listed: definitions, assignments, calls, and compound statements with
// what they define inside.
func (x *extractor) pyBlock(kids []*syntax.Node, inClass bool) []*Symbol {
	var out []*Symbol
	var im importSummary
	for _, n := range kids {
		switch n.Type() {
		case "comment", "pass_statement":
		case "import_statement", "import_from_statement", "future_import_statement":
			im.add(n, x.pyImports(n)...)
		case "decorated_definition":
			def := n.ChildByFieldName("definition")
			if def == nil {
				continue
			}
			s := x.pyDef(def, inClass)
			s.StartLine = startLine(n)
			for _, d := range x.named(n) {
				if d.Type() == "decorator" {
					s.Decorators = append(s.Decorators, clipText(squash(x.text(d)), maxHeaderBytes))
				}
			}
			out = append(out, s)
		case "function_definition", "class_definition":
			out = append(out, x.pyDef(n, inClass))
		case "expression_statement":
			if s := x.pyExpr(n, inClass); s != nil {
				out = append(out, s)
			}
		case "if_statement":
			s := x.pySym("if", x.header(n), n)
			if isMainCheck(x.field(n, "condition")) {
				s.Kind, s.Name, s.Signature = "main", "__main__", s.Name
			}
			s.Children = x.pyInner(n, inClass)
			out = append(out, s)
		case "ERROR":
			out = append(out, x.pyBlock(x.kids(n), inClass)...)
		default:
			if kind, ok := blockKinds[n.Type()]; ok {
				s := x.pySym(kind, x.header(n), n)
				s.Children = x.pyInner(n, inClass)
				out = append(out, s)
			} else if n.IsNamed() {
				out = append(out, newSym("stmt", x.value(n), n))
			}
		}
	}
	return im.emit(out)
}

// pySym makes a symbol spanning n. A Python block ends with its last
// statement: the parser lets it swallow the comments that follow, which
// belong to whatever comes next.
func (x *extractor) pySym(kind, name string, n *syntax.Node) *Symbol {
	s := newSym(kind, name, n)
	s.EndLine = x.lastCodeLine(n)
	return s
}

// lastCodeLine is the last line of n that is not a trailing comment: the
// last line of the last child that is not a comment, found the same way
// in that child, down to a leaf (or a node with only comments).
func (x *extractor) lastCodeLine(n *syntax.Node) int { return n.LastCodeLine() }

// pyInner outlines the blocks of a compound statement: its body and those
// of its elif/else/except/finally/case clauses.
func (x *extractor) pyInner(n *syntax.Node, inClass bool) []*Symbol {
	var out []*Symbol
	for _, c := range x.named(n) {
		switch {
		case c.Type() == "block":
			out = append(out, x.pyBlock(x.kids(c), inClass)...)
		case strings.HasSuffix(c.Type(), "_clause"):
			out = append(out, x.pyInner(c, inClass)...)
		}
	}
	return out
}

func isMainCheck(cond string) bool {
	switch strings.ReplaceAll(cond, "'", `"`) {
	case `__name__ == "__main__"`, `"__main__" == __name__`:
		return true
	}
	return false
}

func (x *extractor) pyImports(n *syntax.Node) []string {
	if m := n.ChildByFieldName("module_name"); m != nil {
		return []string{squash(x.text(m))}
	}
	if n.Type() == "future_import_statement" {
		return []string{"__future__"}
	}
	var names []string
	for _, c := range x.named(n) {
		switch c.Type() {
		case "dotted_name":
			names = append(names, x.text(c))
		case "aliased_import":
			names = append(names, x.field(c, "name"))
		}
	}
	return names
}

// pyDef outlines a function or class definition.
func (x *extractor) pyDef(n *syntax.Node, inClass bool) *Symbol {
	body := n.ChildByFieldName("body")
	if n.Type() == "class_definition" {
		s := x.pySym("class", x.field(n, "name"), n)
		s.Signature = clipText(x.field(n, "type_parameters")+x.field(n, "superclasses"), maxSigBytes)
		s.Doc = x.pyDocstring(body)
		if body != nil {
			s.Children = x.pyBlock(x.kids(body), true)
		}
		return s
	}
	kind := "func"
	if inClass {
		kind = "method"
	}
	s := x.pySym(kind, x.field(n, "name"), n)
	sig := x.field(n, "type_parameters") + x.field(n, "parameters")
	if r := x.field(n, "return_type"); r != "" {
		sig += " -> " + r
	}
	s.Signature = clipText(sig, maxSigBytes)
	s.Modifiers = x.modifiers(n)
	s.Doc = x.pyDocstring(body)
	x.addBlocks(s, body)
	return s
}

// pyDocstring returns the first sentence of the docstring that opens body.
func (x *extractor) pyDocstring(body *syntax.Node) string {
	if body == nil {
		return ""
	}
	// The statements of body, read one at a time: only the first that
	// is not a comment is wanted.
	for i := 0; ; i++ {
		st := body.NamedChild(i)
		if st == nil {
			return ""
		}
		if isComment(st) {
			continue
		}
		if st.Type() != "expression_statement" {
			return ""
		}
		k := x.named(st)
		if len(k) != 1 || k[0].Type() != "string" {
			return ""
		}
		t := strings.TrimLeft(x.text(k[0]), "rRuUbBfF")
		t = strings.Trim(t, `"'`)
		return summary(strings.Split(t, "\n"))
	}
}

// pyExpr outlines an expression statement: an assignment, a call, or any
// other expression (a bare string, such as a docstring, is skipped).
func (x *extractor) pyExpr(n *syntax.Node, inClass bool) *Symbol {
	k := x.named(n)
	if len(k) == 0 {
		return nil
	}
	e := k[0]
	switch e.Type() {
	case "string", "concatenated_string":
		return nil
	case "assignment":
		left := e.ChildByFieldName("left")
		kind := "assign"
		if left != nil && (left.Type() == "identifier" || left.Type() == "pattern_list") {
			kind = "var"
			if inClass {
				kind = "field"
			}
		}
		s := newSym(kind, squash(x.text(left)), n)
		var sig string
		if t := x.field(e, "type"); t != "" {
			sig = ": " + t
		}
		if r := e.ChildByFieldName("right"); r != nil {
			if sig != "" {
				sig += " "
			}
			sig += "= " + x.value(r)
		}
		s.Signature = sig
		return s
	case "augmented_assignment":
		s := newSym("assign", x.field(e, "left"), n)
		s.Signature = x.field(e, "operator") + " " + x.value(e.ChildByFieldName("right"))
		return s
	case "call":
		s := newSym("call", clipText(x.field(e, "function"), maxValueBytes), n)
		s.Signature = x.value(e.ChildByFieldName("arguments"))
		return s
	}
	return newSym("stmt", x.value(n), n)
}
