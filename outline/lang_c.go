package outline

import (
	"strings"

	"cchub/lang"
	"cchub/syntax"
)

func init() {
	for _, language := range []string{lang.C, lang.Cpp} {
		langSpecs[language] = langSpec{
			walk: func(x *extractor, top []*syntax.Node) []*Symbol { return x.cDecls(top, false) },
		}
	}
}

// cDecls outlines the declarations of a C or C++ file, namespace or class
// body (inClass). Preprocessor conditionals are transparent: what they
// declare is listed at the level they sit in, and an include guard's own
// #define is left out. A C++ template header is shown as a decorator and
// starts the range.
func (x *extractor) cDecls(kids []*syntax.Node, inClass bool) []*Symbol {
	return x.cDeclsGuarded(kids, inClass, "")
}

func (x *extractor) cDeclsGuarded(kids []*syntax.Node, inClass bool, guard string) []*Symbol {
	var out []*Symbol
	var im importSummary
	for i, n := range kids {
		switch n.Type() {
		case "preproc_include":
			im.add(n, trimQuotes(x.field(n, "path")))
			continue
		case "preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "preproc_elifdef":
			g := ""
			if n.Type() == "preproc_ifdef" && x.hasToken(n, "#ifndef") {
				g = x.field(n, "name")
			}
			out = append(out, x.cDeclsGuarded(x.kids(n), inClass, g)...)
			continue
		case "linkage_specification": // extern "C" { ... }
			if body := n.ChildByFieldName("body"); body != nil {
				if body.Type() == "declaration_list" {
					out = append(out, x.cDeclsGuarded(x.kids(body), inClass, "")...)
				} else {
					out = append(out, x.cDeclsGuarded([]*syntax.Node{body}, inClass, "")...)
				}
			}
			continue
		case "ERROR":
			out = append(out, x.cDeclsGuarded(x.kids(n), inClass, "")...)
			continue
		}
		syms := x.cDecl(n, inClass, guard)
		if len(syms) == 0 {
			continue
		}
		out = append(out, x.withDocAbove(syms, kids, i)...)
	}
	return im.emit(out)
}

var cTypeKinds = map[string]string{
	"struct_specifier": "struct", "union_specifier": "union",
	"enum_specifier": "enum", "class_specifier": "class",
}

// cDecl outlines one declaration; it may declare several names or none.
func (x *extractor) cDecl(n *syntax.Node, inClass bool, guard string) []*Symbol {
	switch t := n.Type(); t {
	case "preproc_def", "preproc_function_def":
		name := x.field(n, "name")
		v := n.ChildByFieldName("value")
		if v == nil && name == guard {
			return nil
		}
		s := newSym("macro", name, n)
		s.Signature = x.field(n, "parameters")
		if v != nil {
			s.Signature = strings.TrimSpace(s.Signature + " " + x.value(v))
		}
		return []*Symbol{s}
	case "function_definition":
		s := x.cFunc(n, n.ChildByFieldName("declarator"), inClass)
		if s == nil {
			return nil
		}
		x.addBlocks(s, n.ChildByFieldName("body"))
		return []*Symbol{s}
	case "declaration", "field_declaration":
		var out []*Symbol
		if ts := x.cTypeSpec(n.ChildByFieldName("type"), n, inClass); ts != nil {
			out = append(out, ts)
		}
		for _, d := range x.fieldKids(n, "declarator") {
			if s := x.cFunc(n, d, inClass); s != nil {
				out = append(out, s)
				continue
			}
			name, _, ptr := x.cDeclName(d)
			kind := "var"
			if inClass {
				kind = "field"
			}
			s := newSym(kind, name, n)
			sig := x.field(n, "type") + ptr
			if v := d.ChildByFieldName("value"); v != nil {
				sig += " = " + x.value(v)
			} else if v := n.ChildByFieldName("default_value"); v != nil {
				sig += " = " + x.value(v)
			}
			s.Signature = clipText(sig, maxSigBytes)
			out = append(out, s)
		}
		return out
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		if s := x.cTypeSpec(n, n, inClass); s != nil {
			return []*Symbol{s}
		}
	case "type_definition":
		var out []*Symbol
		for _, d := range x.fieldKids(n, "declarator") {
			name, _, _ := x.cDeclName(d)
			s := newSym("type", name, n)
			typ := n.ChildByFieldName("type")
			if typ != nil && typ.ChildByFieldName("body") != nil {
				if ts := x.cTypeSpec(typ, n, inClass); ts != nil {
					ts.Name = name
					if tag := x.field(typ, "name"); tag != "" && tag != name {
						ts.Signature = "= " + cTypeKinds[typ.Type()] + " " + tag
					}
					s = ts
				}
			} else {
				s.Signature = "= " + clipText(squash(strings.TrimSuffix(strings.TrimPrefix(x.text(n), "typedef"), ";")), maxSigBytes)
			}
			out = append(out, s)
		}
		return out
	case "alias_declaration":
		s := newSym("type", x.field(n, "name"), n)
		s.Signature = "= " + x.value(n.ChildByFieldName("type"))
		return []*Symbol{s}
	case "namespace_definition":
		name := x.field(n, "name")
		if name == "" {
			name = "(anonymous)"
		}
		s := newSym("namespace", name, n)
		if body := n.ChildByFieldName("body"); body != nil {
			s.Children = x.cDecls(x.kids(body), false)
		}
		return []*Symbol{s}
	case "template_declaration":
		params := "template " + x.field(n, "parameters")
		var out []*Symbol
		for _, c := range x.named(n) {
			if c.Type() == "template_parameter_list" {
				continue
			}
			for _, s := range x.cDecl(c, inClass, "") {
				s.StartLine = startLine(n)
				s.Decorators = append([]string{clipText(params, maxHeaderBytes)}, s.Decorators...)
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// cTypeSpec outlines a struct, union, enum or class specifier that has a
// body; span is the node whose range the symbol takes.
func (x *extractor) cTypeSpec(t, span *syntax.Node, inClass bool) *Symbol {
	if t == nil {
		return nil
	}
	kind, ok := cTypeKinds[t.Type()]
	body := t.ChildByFieldName("body")
	if !ok || body == nil {
		return nil
	}
	name := x.field(t, "name")
	if name == "" {
		name = "(anonymous)"
	}
	s := newSym(kind, name, span)
	for _, c := range x.named(t) {
		if c.Type() == "base_class_clause" {
			s.Signature = clipText(squash(x.text(c)), maxSigBytes)
		}
	}
	// C structs are records: their fields are the body a reader sees.
	// C++ classes and structs have members worth listing.
	if x.language == lang.Cpp && kind != "enum" {
		s.Children = x.cDecls(x.kids(body), true)
	}
	return s
}

// cFunc returns the function symbol that declarator d of n declares, or
// nil when d declares something else (a variable, a function pointer).
func (x *extractor) cFunc(n, d *syntax.Node, inClass bool) *Symbol {
	name, fn, ptr := x.cDeclName(d)
	if fn == nil || name == "" {
		return nil
	}
	kind := "func"
	if inClass {
		kind = "method"
	}
	s := newSym(kind, name, n)
	params := fn.ChildByFieldName("parameters")
	sig := squash(x.text(params))
	if params != nil && fn.EndByte() > params.EndByte() {
		sig += " " + squash(string(x.src[params.EndByte():fn.EndByte()])) // const, noexcept, override
	}
	if ret := x.field(n, "type"); ret != "" {
		sig += " " + ret + ptr
	}
	s.Signature = clipText(strings.TrimSpace(sig), maxSigBytes)
	return s
}

// cDeclName follows a declarator to the name it declares. fn is the
// function declarator when the name is a function's (not a pointer to
// one); ptr is the * and & between the return type and the name.
func (x *extractor) cDeclName(d *syntax.Node) (name string, fn *syntax.Node, ptr string) {
	for d != nil {
		switch d.Type() {
		case "function_declarator":
			if fn == nil {
				fn = d
			}
			d = d.ChildByFieldName("declarator")
		case "pointer_declarator", "reference_declarator", "rvalue_reference_declarator":
			if fn != nil { // a pointer to a function is not a function
				return x.cDeclNameOnly(d), nil, ""
			}
			if d.Type() == "pointer_declarator" {
				ptr += "*"
			} else {
				ptr += "&"
			}
			d = x.lastNamed(d)
		case "init_declarator", "array_declarator", "attributed_declarator":
			d = d.ChildByFieldName("declarator")
		case "parenthesized_declarator":
			d = x.lastNamed(d)
		default:
			return squash(x.text(d)), fn, ptr
		}
	}
	return "", nil, ""
}

func (x *extractor) cDeclNameOnly(d *syntax.Node) string {
	name, _, _ := x.cDeclName(d)
	return name
}

func (x *extractor) lastNamed(n *syntax.Node) *syntax.Node {
	k := x.named(n)
	if len(k) == 0 {
		return nil
	}
	return k[len(k)-1]
}

// fieldKids returns the children of n in field name (a field may repeat:
// `int a, b;` has two declarators).
func (x *extractor) fieldKids(n *syntax.Node, name string) []*syntax.Node {
	return x.kidsWhere(n, func(field string) bool { return field == name })
}
