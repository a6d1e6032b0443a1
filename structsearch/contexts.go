package structsearch

import "strings"

// wrap is one place a fragment can stand in a language: the text around it
// and a name for messages.
type wrap struct {
	name           string
	prefix, suffix string
	// indent, for Python, is put before every line of the fragment.
	indent string
}

// contexts lists, per language, where a pattern is tried, in order:
// expression, statement, member, top level. The first that parses without
// error and yields one node spanning the fragment wins.
var contexts = map[string][]wrap{
	"go": {
		{name: "expression", prefix: "package cchub\nvar _ = ", suffix: "\n"},
		{name: "statement", prefix: "package cchub\nfunc cchub() {\n", suffix: "\n}\n"},
		{name: "struct member", prefix: "package cchub\ntype cchub struct {\n", suffix: "\n}\n"},
		{name: "top level", prefix: "package cchub\n", suffix: "\n"},
		{name: "file", prefix: "", suffix: "\n"},
	},
	"python": {
		{name: "expression", prefix: "_ = ", suffix: "\n"},
		{name: "statement", prefix: "", suffix: "\n"},
		{name: "function body", prefix: "def cchub():\n", suffix: "\n", indent: "    "},
		{name: "class member", prefix: "class cchub:\n", suffix: "\n", indent: "    "},
	},
	"javascript": jsContexts,
	"typescript": jsContexts,
	"tsx":        jsContexts,
	"rust": {
		{name: "expression", prefix: "fn cchub() { let _ = ", suffix: "; }\n"},
		{name: "statement", prefix: "fn cchub() {\n", suffix: "\n}\n"},
		{name: "impl member", prefix: "impl cchub {\n", suffix: "\n}\n"},
		{name: "top level", prefix: "", suffix: "\n"},
	},
	"java": {
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
	"cpp": {
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
// literal read as a labelled block). A context that yields one is used only
// if no other context parses.
var misreadKinds = map[string]map[string]bool{
	"go":         {"type_conversion_expression": true},
	"javascript": {"labeled_statement": true},
	"typescript": {"labeled_statement": true},
	"tsx":        {"labeled_statement": true},
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
