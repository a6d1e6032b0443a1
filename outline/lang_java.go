package outline

import (
	"strings"

	"cchub/lang"
	"cchub/syntax"
)

func init() {
	langSpecs[lang.Java] = langSpec{walk: (*extractor).javaDecls}
}

// javaDecls outlines the declarations of a Java file or of a type body.
// Annotations are the symbols' decorators; they are part of the
// declaration, so its range starts with them.
func (x *extractor) javaDecls(kids []*syntax.Node) []*Symbol {
	var out []*Symbol
	var im importSummary
	for i, n := range kids {
		var syms []*Symbol
		switch n.Type() {
		case "import_declaration":
			t := strings.TrimSpace(strings.TrimSuffix(squash(x.text(n)), ";"))
			im.add(n, strings.TrimSpace(strings.TrimPrefix(t, "import")))
			continue
		case "class_declaration", "interface_declaration", "enum_declaration",
			"record_declaration", "annotation_type_declaration":
			syms = []*Symbol{x.javaType(n)}
		case "method_declaration", "constructor_declaration", "compact_constructor_declaration",
			"annotation_type_element_declaration":
			s := newSym("method", x.field(n, "name"), n)
			sig := x.field(n, "type_parameters") + x.field(n, "parameters")
			if n.Type() == "annotation_type_element_declaration" {
				sig = "()"
			}
			if t := x.field(n, "type"); t != "" {
				sig += " " + t
			}
			s.Signature = clipText(sig, maxSigBytes)
			s.Modifiers = x.modifiers(n)
			x.addBlocks(s, n.ChildByFieldName("body"))
			syms = []*Symbol{s}
		case "field_declaration", "constant_declaration":
			typ := x.field(n, "type")
			for _, d := range x.named(n) {
				if d.Type() != "variable_declarator" {
					continue
				}
				s := newSym("field", x.field(d, "name"), n)
				sig := typ
				if v := d.ChildByFieldName("value"); v != nil {
					sig += " = " + x.value(v)
				}
				s.Signature = sig
				s.Modifiers = x.modifiers(n)
				syms = append(syms, s)
			}
		case "static_initializer":
			syms = []*Symbol{newSym("init", "static", n)}
		case "block": // an instance initializer
			syms = []*Symbol{newSym("init", "{}", n)}
		case "enum_body_declarations", "ERROR":
			out = append(out, x.javaDecls(x.kids(n))...)
			continue
		default:
			continue
		}
		doc := x.docAbove(kids, i)
		decs := x.javaAnnotations(n)
		for _, s := range syms {
			s.Doc, s.Decorators = doc, decs
		}
		out = append(out, syms...)
	}
	return im.emit(out)
}

var javaTypeKinds = map[string]string{
	"class_declaration":           "class",
	"interface_declaration":       "interface",
	"enum_declaration":            "enum",
	"record_declaration":          "record",
	"annotation_type_declaration": "annotation",
}

func (x *extractor) javaType(n *syntax.Node) *Symbol {
	s := newSym(javaTypeKinds[n.Type()], x.field(n, "name"), n)
	sig := x.field(n, "type_parameters") + x.field(n, "parameters")
	for _, f := range []string{"superclass", "interfaces"} {
		if v := x.field(n, f); v != "" {
			sig += " " + v
		}
	}
	for _, c := range x.named(n) {
		if c.Type() == "extends_interfaces" {
			sig += " " + squash(x.text(c))
		}
	}
	s.Signature = clipText(strings.TrimSpace(sig), maxSigBytes)
	if body := n.ChildByFieldName("body"); body != nil {
		s.Children = x.javaDecls(x.kids(body))
	}
	return s
}

// javaAnnotations returns the annotations among n's modifiers.
func (x *extractor) javaAnnotations(n *syntax.Node) []string {
	mods := x.firstOfType(n, "modifiers")
	if mods == nil {
		return nil
	}
	var out []string
	for _, a := range x.named(mods) {
		if a.Type() == "annotation" || a.Type() == "marker_annotation" {
			out = append(out, clipText(squash(x.text(a)), maxHeaderBytes))
		}
	}
	return out
}
