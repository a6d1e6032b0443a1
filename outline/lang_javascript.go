package outline

import (
	"strings"

	"cchub/lang"
	"cchub/syntax"
)

func init() {
	for _, language := range []string{lang.JavaScript, lang.TypeScript, lang.TSX} {
		langSpecs[language] = langSpec{walk: (*extractor).jsStatements}
	}
}

// jsStatements outlines the statements of a JavaScript, TypeScript or TSX
// program or namespace: declarations, and the top-level calls and
// assignments that run when the module loads.
func (x *extractor) jsStatements(kids []*syntax.Node) []*Symbol {
	var out []*Symbol
	var im importSummary
	for i, n := range kids {
		if n.Type() == "import_statement" {
			im.add(n, trimQuotes(x.field(n, "source")))
			continue
		}
		if n.Type() == "export_statement" && n.ChildByFieldName("source") != nil {
			im.add(n, trimQuotes(x.field(n, "source"))) // a re-export is a dependency too
			continue
		}
		syms := x.jsStatement(n)
		if len(syms) == 0 {
			continue
		}
		out = append(out, x.withDocAbove(syms, kids, i)...)
	}
	return im.emit(out)
}

// jsStatement outlines one top-level statement; it may declare several
// names (`const a = 1, b = 2`) or none.
func (x *extractor) jsStatement(n *syntax.Node) []*Symbol {
	switch n.Type() {
	case "comment", "empty_statement":
		return nil
	case "export_statement":
		var decs []string
		for _, c := range x.named(n) {
			if c.Type() == "decorator" {
				decs = append(decs, clipText(squash(x.text(c)), maxHeaderBytes))
			}
		}
		var syms []*Symbol
		if d := n.ChildByFieldName("declaration"); d != nil {
			syms = x.jsStatement(d)
		} else if v := n.ChildByFieldName("value"); v != nil && v.Type() != "identifier" {
			syms = x.jsValue("default", v, n) // export default Store names a symbol listed already
		}
		for _, s := range syms {
			s.StartLine = min(s.StartLine, startLine(n))
			if len(decs) > 0 {
				s.Decorators = append(append([]string(nil), decs...), s.Decorators...)
			}
		}
		return syms
	case "ambient_declaration": // declare ...
		var out []*Symbol
		for _, c := range x.named(n) {
			for _, s := range x.jsStatement(c) {
				s.StartLine = startLine(n)
				out = append(out, s)
			}
		}
		return out
	case "function_declaration", "generator_function_declaration", "function_signature":
		s := newSym("func", x.field(n, "name"), n)
		s.Signature = x.jsFuncSig(n)
		s.Modifiers = x.modifiers(n)
		x.addBlocks(s, n.ChildByFieldName("body"))
		return []*Symbol{s}
	case "class_declaration", "abstract_class_declaration", "class":
		return []*Symbol{x.jsClass(n, x.field(n, "name"))}
	case "interface_declaration":
		s := newSym("interface", x.field(n, "name"), n)
		s.Signature = x.jsHeritage(n)
		s.Children = x.jsMembers(n.ChildByFieldName("body"))
		return []*Symbol{s}
	case "type_alias_declaration":
		s := newSym("type", x.field(n, "name"), n)
		s.Signature = strings.TrimSpace(x.field(n, "type_parameters") + " = " + x.value(n.ChildByFieldName("value")))
		return []*Symbol{s}
	case "enum_declaration":
		return []*Symbol{newSym("enum", x.field(n, "name"), n)}
	case "internal_module", "module":
		s := newSym("namespace", trimQuotes(x.field(n, "name")), n)
		if body := n.ChildByFieldName("body"); body != nil {
			s.Children = x.jsStatements(x.kids(body))
		}
		return []*Symbol{s}
	case "lexical_declaration", "variable_declaration":
		kind := "var"
		if x.hasToken(n, "const") {
			kind = "const"
		}
		var decls []*syntax.Node
		for _, c := range x.named(n) {
			if c.Type() == "variable_declarator" {
				decls = append(decls, c)
			}
		}
		var out []*Symbol
		for j, d := range decls {
			span := d
			if len(decls) == 1 {
				span = n
			}
			name := squash(x.text(d.ChildByFieldName("name")))
			var s *Symbol
			if v := d.ChildByFieldName("value"); v != nil && x.jsIsCode(v) {
				s = x.jsValue(name, v, span)[0]
			} else {
				s = newSym(kind, name, span)
				sig := x.field(d, "type")
				if v != nil {
					if sig != "" {
						sig += " "
					}
					sig += "= " + x.value(v)
				}
				s.Signature = sig
			}
			if j == 0 {
				s.StartLine = startLine(n)
			}
			out = append(out, s)
		}
		return out
	case "expression_statement":
		return x.jsExpr(n)
	case "labeled_statement":
		if b := x.block(n); b != nil {
			return []*Symbol{b}
		}
	case "ERROR":
		return x.jsStatements(x.kids(n))
	}
	if b := x.block(n); b != nil {
		return []*Symbol{b}
	}
	if n.IsNamed() && strings.HasSuffix(n.Type(), "_statement") {
		return []*Symbol{newSym("stmt", x.value(n), n)}
	}
	return nil
}

// jsIsCode reports whether an initializer is a function or class, which
// the outline shows as such rather than as a value.
func (x *extractor) jsIsCode(v *syntax.Node) bool {
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function", "class":
		return true
	}
	return false
}

// jsValue outlines a named function or class expression, or a value.
func (x *extractor) jsValue(name string, v, span *syntax.Node) []*Symbol {
	switch v.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		s := newSym("func", name, span)
		s.Modifiers = x.modifiers(v)
		if p := v.ChildByFieldName("parameter"); p != nil { // x => ...
			s.Signature = "(" + x.text(p) + ")"
		} else {
			s.Signature = x.jsFuncSig(v)
		}
		x.addBlocks(s, v.ChildByFieldName("body"))
		return []*Symbol{s}
	case "class":
		s := x.jsClass(v, name)
		s.StartLine, s.EndLine = startLine(span), endLine(span)
		return []*Symbol{s}
	}
	s := newSym("var", name, span)
	s.Signature = "= " + x.value(v)
	return []*Symbol{s}
}

func (x *extractor) jsFuncSig(n *syntax.Node) string {
	sig := x.field(n, "type_parameters") + x.field(n, "parameters") + x.field(n, "return_type")
	return clipText(sig, maxSigBytes)
}

// jsHeritage renders type parameters and extends/implements clauses.
func (x *extractor) jsHeritage(n *syntax.Node) string {
	sig := x.field(n, "type_parameters")
	for _, c := range x.named(n) {
		switch c.Type() {
		case "class_heritage", "extends_type_clause", "extends_clause", "implements_clause":
			sig += " " + squash(x.text(c))
		}
	}
	return clipText(strings.TrimSpace(sig), maxSigBytes)
}

func (x *extractor) jsClass(n *syntax.Node, name string) *Symbol {
	s := newSym("class", name, n)
	s.Signature = x.jsHeritage(n)
	for _, c := range x.named(n) {
		if c.Type() == "decorator" {
			s.Decorators = append(s.Decorators, clipText(squash(x.text(c)), maxHeaderBytes))
		}
	}
	s.Children = x.jsMembers(n.ChildByFieldName("body"))
	return s
}

// jsMembers outlines a class or interface body. Decorators written before
// a member are its own, and its range starts with them.
func (x *extractor) jsMembers(body *syntax.Node) []*Symbol {
	if body == nil {
		return nil
	}
	var out []*Symbol
	var decs []string
	decStart := 0
	kids := x.kids(body)
	for i, m := range kids {
		var s *Symbol
		switch m.Type() {
		case "decorator":
			if len(decs) == 0 {
				decStart = startLine(m)
			}
			decs = append(decs, clipText(squash(x.text(m)), maxHeaderBytes))
			continue
		case "method_definition", "method_signature", "abstract_method_signature":
			s = newSym("method", x.field(m, "name"), m)
			s.Signature = x.jsFuncSig(m)
			s.Modifiers = x.modifiers(m)
			x.addBlocks(s, m.ChildByFieldName("body"))
		case "public_field_definition", "field_definition":
			name := x.field(m, "name")
			if name == "" {
				name = x.field(m, "property")
			}
			v := m.ChildByFieldName("value")
			if v != nil && x.jsIsCode(v) {
				s = x.jsValue(name, v, m)[0]
				s.Kind = "method"
			} else {
				s = newSym("field", name, m)
				sig := x.field(m, "type")
				if v != nil {
					if sig != "" {
						sig += " "
					}
					sig += "= " + x.value(v)
				}
				s.Signature = sig
			}
			s.Modifiers = x.modifiers(m)
		case "class_static_block":
			s = newSym("init", "static", m)
		default:
			continue
		}
		// Decorators and the doc comment may come in either order.
		j := i
		for j > 0 && kids[j-1].Type() == "decorator" {
			j--
		}
		s.Doc = x.docAbove(kids, j)
		if len(decs) > 0 {
			s.Decorators, s.StartLine = decs, decStart
			decs = nil
		}
		for _, d := range x.named(m) {
			if d.Type() == "decorator" {
				s.Decorators = append(s.Decorators, clipText(squash(x.text(d)), maxHeaderBytes))
			}
		}
		out = append(out, s)
	}
	return out
}

// jsExpr outlines a top-level expression statement: a call, an
// assignment, or another expression. A directive ('use strict') is skipped.
func (x *extractor) jsExpr(n *syntax.Node) []*Symbol {
	k := x.named(n)
	if len(k) == 0 {
		return nil
	}
	e := k[0]
	if e.Type() == "await_expression" {
		if a := x.named(e); len(a) == 1 && a[0].Type() == "call_expression" {
			e = a[0]
		}
	}
	switch e.Type() {
	case "string":
		return nil
	case "call_expression":
		s := newSym("call", clipText(x.field(e, "function"), maxValueBytes), n)
		s.Signature = x.value(e.ChildByFieldName("arguments"))
		return []*Symbol{s}
	case "assignment_expression":
		left := e.ChildByFieldName("left")
		kind := "assign"
		if left != nil && left.Type() == "identifier" {
			kind = "var"
		}
		name := squash(x.text(left))
		if v := e.ChildByFieldName("right"); v != nil && x.jsIsCode(v) {
			s := x.jsValue(name, v, n)[0]
			return []*Symbol{s}
		}
		s := newSym(kind, name, n)
		s.Signature = "= " + x.value(e.ChildByFieldName("right"))
		return []*Symbol{s}
	}
	return []*Symbol{newSym("stmt", x.value(n), n)}
}
