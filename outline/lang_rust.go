package outline

import (
	"strings"

	"cchub/lang"
	"cchub/syntax"
)

func init() {
	langSpecs[lang.Rust] = langSpec{
		walk: func(x *extractor, top []*syntax.Node) []*Symbol { return x.rustItems(top, "") },
	}
}

// rustItems outlines the items of a Rust file, module, impl or trait body.
// owner is "impl" or "trait" inside those bodies, where functions taking
// self are methods. Attributes (#[test], #[derive(...)]) before an item
// are its decorators and start its range; outer doc comments (///, /**)
// give its doc, wherever they sit among the attributes.
func (x *extractor) rustItems(kids []*syntax.Node, owner string) []*Symbol {
	var out []*Symbol
	var im importSummary
	var attrs []string
	attrStart, doc := 0, ""
	for _, n := range kids {
		t := n.Type()
		switch t {
		case "attribute_item":
			if len(attrs) == 0 {
				attrStart = startLine(n)
			}
			attrs = append(attrs, clipText(squash(x.text(n)), maxHeaderBytes))
			continue
		case "line_comment", "block_comment":
			c := x.text(n)
			if (strings.HasPrefix(c, "///") && !strings.HasPrefix(c, "////")) ||
				(strings.HasPrefix(c, "/**") && !strings.HasPrefix(c, "/***") && c != "/**/") {
				if doc == "" {
					doc = x.docLine(c)
				}
			}
			continue
		case "inner_attribute_item", ";":
			continue
		}
		s := x.rustItem(n, owner, &im)
		if s != nil {
			s.Doc = doc
			if len(attrs) > 0 {
				s.Decorators = attrs
				s.StartLine = min(s.StartLine, attrStart)
			}
			out = append(out, s)
		}
		if t == "ERROR" {
			out = append(out, x.rustItems(x.kids(n), owner)...)
		}
		attrs, doc = nil, ""
	}
	return im.emit(out)
}

// rustItem outlines one item, or adds a use declaration to im.
func (x *extractor) rustItem(n *syntax.Node, owner string, im *importSummary) *Symbol {
	switch n.Type() {
	case "use_declaration":
		im.add(n, x.field(n, "argument"))
	case "extern_crate_declaration":
		im.add(n, x.field(n, "name"))
	case "mod_item":
		s := newSym("module", x.field(n, "name"), n)
		if body := n.ChildByFieldName("body"); body != nil {
			s.Children = x.rustItems(x.kids(body), "")
		}
		return s
	case "foreign_mod_item":
		name := "extern"
		if m := x.firstOfType(n, "extern_modifier"); m != nil {
			name = squash(x.text(m))
		}
		s := newSym("module", name, n)
		if body := n.ChildByFieldName("body"); body != nil {
			s.Children = x.rustItems(x.kids(body), "")
		}
		return s
	case "function_item", "function_signature_item":
		kind := "func"
		params := n.ChildByFieldName("parameters")
		if owner != "" && params != nil && x.firstOfType(params, "self_parameter") != nil {
			kind = "method"
		}
		s := newSym(kind, x.field(n, "name"), n)
		sig := x.field(n, "type_parameters") + squash(x.text(params))
		if r := x.field(n, "return_type"); r != "" {
			sig += " -> " + r
		}
		s.Signature = clipText(sig, maxSigBytes)
		s.Modifiers = x.modifiers(n)
		x.addBlocks(s, n.ChildByFieldName("body"))
		return s
	case "struct_item", "union_item", "enum_item":
		kind := strings.TrimSuffix(n.Type(), "_item")
		s := newSym(kind, x.field(n, "name"), n)
		s.Signature = x.field(n, "type_parameters")
		return s
	case "trait_item":
		s := newSym("trait", x.field(n, "name"), n)
		sig := x.field(n, "type_parameters")
		if b := x.field(n, "bounds"); b != "" {
			sig += b
		}
		s.Signature = clipText(sig, maxSigBytes)
		if body := n.ChildByFieldName("body"); body != nil {
			s.Children = x.rustItems(x.kids(body), "trait")
		}
		return s
	case "impl_item":
		s := newSym("impl", rustTypeName(x, n.ChildByFieldName("type")), n)
		body := n.ChildByFieldName("body")
		head := x.text(n)
		if body != nil {
			head = string(x.src[n.StartByte():body.StartByte()])
		}
		head = squash(head)
		if i := strings.Index(head, "impl"); i >= 0 {
			head = strings.TrimSpace(head[i+len("impl"):])
		}
		s.Signature = clipText(head, maxSigBytes)
		if body != nil {
			s.Children = x.rustItems(x.kids(body), "impl")
		}
		return s
	case "const_item", "static_item":
		kind := "const"
		if n.Type() == "static_item" {
			kind = "var"
		}
		s := newSym(kind, x.field(n, "name"), n)
		sig := ""
		if t := x.field(n, "type"); t != "" {
			sig = ": " + t
		}
		if v := n.ChildByFieldName("value"); v != nil {
			sig += " = " + x.value(v)
		}
		s.Signature = strings.TrimSpace(sig)
		return s
	case "type_item", "associated_type":
		s := newSym("type", x.field(n, "name"), n)
		sig := x.field(n, "type_parameters")
		if t := n.ChildByFieldName("type"); t != nil {
			sig += " = " + x.value(t)
		}
		s.Signature = strings.TrimSpace(sig)
		return s
	case "macro_definition":
		return newSym("macro", x.field(n, "name"), n)
	case "macro_invocation":
		s := newSym("call", x.field(n, "macro")+"!", n)
		return s
	case "expression_statement":
		if k := x.named(n); len(k) == 1 && k[0].Type() == "macro_invocation" {
			s := x.rustItem(k[0], owner, im)
			s.StartLine, s.EndLine = startLine(n), endLine(n)
			return s
		}
	}
	return nil
}

// rustTypeName is the bare name of an impl's type: Stack for Stack<T>,
// Display for fmt::Display.
func rustTypeName(x *extractor, t *syntax.Node) string {
	for t != nil {
		switch t.Type() {
		case "generic_type":
			t = t.ChildByFieldName("type")
		case "scoped_type_identifier":
			t = t.ChildByFieldName("name")
		case "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
		default:
			return squash(x.text(t))
		}
	}
	return ""
}
