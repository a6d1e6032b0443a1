package outline

import (
	"cchub/lang"
	"cchub/syntax"
)

func init() {
	langSpecs[lang.Go] = langSpec{
		walk:       (*extractor).goDecls,
		directives: []string{"//go:", "//line ", "//nolint", "//export ", "//lint:"},
	}
}

// goDecls outlines a Go file's top-level declarations. Methods stay at top
// level, where they are written, with their receiver shown: nesting them
// under a type they are not inside would break "indentation is
// containment".
func (x *extractor) goDecls(kids []*syntax.Node) []*Symbol {
	var out []*Symbol
	var im importSummary
	for i, n := range kids {
		switch n.Type() {
		case "import_declaration":
			im.add(n, x.goImports(n)...)
		case "function_declaration", "method_declaration":
			s := newSym("func", x.field(n, "name"), n)
			if n.Type() == "method_declaration" {
				s.Kind = "method"
				s.Receiver = x.field(n, "receiver")
			}
			s.Signature = x.goFuncSig(n)
			s.Doc = x.docAbove(kids, i)
			x.addBlocks(s, n.ChildByFieldName("body"))
			out = append(out, s)
		case "type_declaration", "const_declaration", "var_declaration":
			out = append(out, x.goGenDecl(kids, i)...)
		case "ERROR":
			out = append(out, x.goDecls(x.kids(n))...)
		}
	}
	return im.emit(out)
}

func (x *extractor) goImports(n *syntax.Node) []string {
	var names []string
	for _, c := range x.named(n) {
		switch c.Type() {
		case "import_spec":
			names = append(names, trimQuotes(x.field(c, "path")))
		case "import_spec_list":
			names = append(names, x.goImports(c)...)
		}
	}
	return names
}

func (x *extractor) goFuncSig(n *syntax.Node) string {
	sig := x.field(n, "type_parameters") + x.field(n, "parameters")
	if r := x.field(n, "result"); r != "" {
		sig += " " + r
	}
	return clipText(sig, maxSigBytes)
}

// goGenDecl outlines a type, const or var declaration. Ungrouped, each
// name is a symbol spanning the whole declaration; grouped, the group is a
// nameless symbol whose children are the names, each spanning its spec.
func (x *extractor) goGenDecl(kids []*syntax.Node, i int) []*Symbol {
	n := kids[i]
	kind := map[string]string{"type_declaration": "type", "const_declaration": "const", "var_declaration": "var"}[n.Type()]
	specs := x.kids(n)
	grouped := x.hasToken(n, "(")
	if len(specs) > 0 && specs[len(specs)-1].Type() == "var_spec_list" {
		specs = x.kids(specs[len(specs)-1])
		grouped = true
	}
	doc := x.docAbove(kids, i)
	if !grouped {
		for _, sp := range specs {
			if !sp.IsNamed() || isComment(sp) {
				continue
			}
			syms := x.goSpec(kind, sp, n)
			for _, s := range syms {
				s.Doc = doc
			}
			return syms
		}
		return nil
	}
	group := newSym(kind, "", n)
	group.Doc = doc
	for j, sp := range specs {
		if !sp.IsNamed() || isComment(sp) {
			continue
		}
		d := x.docAbove(specs, j)
		if d == "" {
			d = x.trailingDoc(specs, j)
		}
		for _, s := range x.goSpec(kind, sp, sp) {
			s.Doc = d
			group.Children = append(group.Children, s)
		}
	}
	return []*Symbol{group}
}

// goSpec returns the symbols one spec declares, spanning span.
func (x *extractor) goSpec(kind string, sp, span *syntax.Node) []*Symbol {
	switch sp.Type() {
	case "type_spec", "type_alias":
		s := newSym("type", x.field(sp, "name"), span)
		tp := x.field(sp, "type_parameters")
		t := sp.ChildByFieldName("type")
		switch {
		case sp.Type() == "type_alias":
			s.Signature = tp + " = " + clipText(squash(x.text(t)), maxSigBytes)
		case t == nil:
		case t.Type() == "struct_type":
			s.Kind, s.Signature = "struct", tp
		case t.Type() == "interface_type":
			s.Kind, s.Signature = "interface", tp
			s.Children = x.goInterface(t)
		default:
			sig := tp + " " + x.value(t)
			if tp == "" {
				sig = x.value(t)
			}
			s.Signature = sig
		}
		return []*Symbol{s}
	case "const_spec", "var_spec":
		sig := x.field(sp, "type")
		if v := sp.ChildByFieldName("value"); v != nil {
			if sig != "" {
				sig += " "
			}
			sig += "= " + x.value(v)
		}
		var out []*Symbol
		for _, c := range x.named(sp) {
			if c.Type() == "identifier" {
				s := newSym(kind, x.text(c), span)
				s.Signature = sig
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// goInterface lists an interface's methods.
func (x *extractor) goInterface(t *syntax.Node) []*Symbol {
	var out []*Symbol
	kids := x.kids(t)
	for j, m := range kids {
		if m.Type() != "method_elem" && m.Type() != "method_spec" {
			continue
		}
		s := newSym("method", x.field(m, "name"), m)
		s.Signature = x.goFuncSig(m)
		s.Doc = x.docAbove(kids, j)
		if s.Doc == "" {
			s.Doc = x.trailingDoc(kids, j)
		}
		out = append(out, s)
	}
	return out
}
