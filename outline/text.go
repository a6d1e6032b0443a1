package outline

import (
	"fmt"
	"strings"

	"cchub/syntax"
	"cchub/textfmt"
)

// maxLeanLine bounds a symbol's line in the lean form; the detail form
// shows the whole signature.
const maxLeanLine = 90

// maxFolded bounds the names a folded line (a var/const group, a run of
// fields) shows; the rest are counted.
const maxFolded = 8

// Text renders the result for a model: compact, one line per symbol.
func (r *Result) Text() string {
	switch {
	case r == nil:
		return ""
	case r.File != nil:
		return r.File.text(r.Detail)
	case r.Dir != nil:
		return r.Dir.Text()
	}
	return ""
}

// Text renders one file's lean outline (see text).
func (f *File) Text() string { return f.text(false) }

// text renders one file's outline. The lean form, the default, is what a
// model needs to pick the lines to read: each symbol's line range, kind,
// name and signature, with groups of variables or fields folded onto one
// line:
//
//	store/store.go (119 lines, go)
//	4-11 import errors, fmt, sort, sync, example.com/shop/pricing
//	17-21 const InStock, LowStock, SoldOut
//	58-60 New(name string) *Store
//	66-74 Store.Add(it Item) error
//	read one: read_symbol id=store/store.go:New
//
// The detail form adds each symbol's doc summary after the language's
// comment marker, decorators, every member of a group, and the
// control-flow blocks of long functions.
func (f *File) text(detail bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s)\n", f.Path, plural(f.Lines, "line", "lines"), f.Language)
	if len(f.Symbols) == 0 {
		switch {
		case f.Match != "":
			fmt.Fprintf(&b, "no symbol matches %q; outline path=%s without match lists them all\n", f.Match, f.Path)
		case len(f.Unparsed) == 0:
			b.WriteString("no declarations or top-level statements; use read to see the file\n")
		default:
			b.WriteString("no declarations could be parsed\n")
		}
	}
	w := symbolWriter{b: &b, detail: detail}
	if l := syntax.LanguageByName(f.Language); l != nil {
		w.comment = l.LineComment
	}
	w.list(f.Symbols, 0, nil)
	if len(f.Unparsed) > 0 {
		b.WriteString("syntax errors at lines ")
		for i, r := range f.Unparsed {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(textfmt.Span(r.Start, r.End))
		}
		b.WriteString("\n")
	}
	all := f.all
	if all == nil {
		all = f.Symbols
	}
	if ex := exampleSymbol(f.Symbols, all); ex != nil {
		id, _ := idFor(all, ex)
		fmt.Fprintf(&b, "read one: read_symbol id=%s:%s\n", f.Path, id)
	}
	return b.String()
}

type symbolWriter struct {
	b       *strings.Builder
	detail  bool
	comment string // the language's line-comment marker, for docs
}

// list writes syms, the children of parent (nil at top level), at depth.
// The lean form leaves out the blocks of long functions, but not blocks
// at top level or in a class, which hold definitions (Python's
// try/except imports, version checks).
func (w *symbolWriter) list(syms []*Symbol, depth int, parent *Symbol) {
	if !w.detail {
		syms = named(syms)
	}
	for i := 0; i < len(syms); i++ {
		s := syms[i]
		if !w.detail {
			if isBlockKind(s.Kind) && parent != nil && isCallable(parent.Kind) {
				continue
			}
			if n := foldRun(syms[i:]); n > 1 {
				w.folded(syms[i:i+n], depth)
				i += n - 1
				continue
			}
		}
		w.line(s, depth)
		if folds(s) && !w.detail {
			continue // its members are folded onto its line
		}
		w.list(s.Children, depth+1, s)
	}
}

// named drops the symbols that declare nothing a caller can name
// (Go's var _ I = T{}).
func named(syms []*Symbol) []*Symbol {
	out := syms[:0:0]
	for _, s := range syms {
		if s.Name != "_" {
			out = append(out, s)
		}
	}
	return out
}

// foldRun is how many symbols from syms[0] fold onto one lean line:
// consecutive variables, constants or fields with no children.
func foldRun(syms []*Symbol) int {
	k := syms[0].Kind
	if (k != "var" && k != "const" && k != "field") || syms[0].Name == "" || len(syms[0].Children) > 0 {
		return 1
	}
	n := 1
	for n < len(syms) && syms[n].Kind == k && syms[n].Name != "" && len(syms[n].Children) == 0 {
		n++
	}
	return n
}

// folds reports whether s is a group of variables or constants, whose
// members the lean form lists on its line.
func folds(s *Symbol) bool {
	return s.Name == "" && (s.Kind == "var" || s.Kind == "const")
}

func (w *symbolWriter) indent(depth int) {
	for i := 0; i < depth; i++ {
		w.b.WriteString("  ")
	}
}

// folded writes a run of variables or fields as one line.
func (w *symbolWriter) folded(run []*Symbol, depth int) {
	w.indent(depth)
	names := make([]string, len(run))
	for i, s := range run {
		names[i] = s.Name
	}
	fmt.Fprintf(w.b, "%s %s %s\n", textfmt.Span(run[0].StartLine, run[len(run)-1].EndLine), run[0].Kind, foldNames(names))
}

func foldNames(names []string) string {
	if len(names) > maxFolded {
		return strings.Join(names[:maxFolded], ", ") + fmt.Sprintf(", +%d more", len(names)-maxFolded)
	}
	return strings.Join(names, ", ")
}

func (w *symbolWriter) line(s *Symbol, depth int) {
	w.indent(depth)
	w.b.WriteString(textfmt.Span(s.StartLine, s.EndLine))
	w.b.WriteByte(' ')
	if w.detail {
		for _, d := range s.Decorators {
			w.b.WriteString(d)
			w.b.WriteByte(' ')
		}
	}
	if folds(s) && !w.detail {
		names := make([]string, 0, len(s.Children))
		for _, c := range named(s.Children) {
			names = append(names, c.Name)
		}
		fmt.Fprintf(w.b, "%s %s\n", s.Kind, foldNames(names))
		return
	}
	switch {
	case w.detail:
		w.b.WriteString(head(s))
	case s.Kind == "var" || s.Kind == "const" || s.Kind == "field":
		w.b.WriteString(withoutValue(head(s)))
	default:
		w.b.WriteString(clipText(head(s), maxLeanLine))
	}
	if w.detail && s.Doc != "" && w.comment != "" {
		w.b.WriteString("  ")
		w.b.WriteString(w.comment)
		w.b.WriteByte(' ')
		w.b.WriteString(s.Doc)
	}
	w.b.WriteByte('\n')
}

// withoutValue cuts the initializer off a variable's line: the lean form
// says what is declared and its type, the detail form its value too.
func withoutValue(line string) string {
	if i := strings.Index(line, " = "); i >= 0 {
		return line[:i]
	}
	return line
}

// isCallable reports whether a symbol is a function or method: its line
// shows no kind word, since its parameter list says what it is.
func isCallable(kind string) bool { return kind == "func" || kind == "method" }

// head is a symbol's line without its range, decorators and doc:
// modifiers, kind, name (qualified by a receiver) and signature.
func head(s *Symbol) string {
	var b strings.Builder
	for _, m := range s.Modifiers {
		b.WriteString(m)
		b.WriteByte(' ')
	}
	switch {
	case isBlockKind(s.Kind):
		b.WriteString(s.Name) // the header already starts with its keyword
		return b.String()
	case s.Kind == "main" && s.Signature != "":
		b.WriteString(s.Signature) // if __name__ == "__main__"
		return b.String()
	case s.Kind == "impl":
		b.WriteString("impl ")
		b.WriteString(s.Signature)
		return b.String()
	case s.Name == "":
		b.WriteString(s.Kind)
		b.WriteString(" (...)")
		return b.String()
	}
	if !isCallable(s.Kind) {
		b.WriteString(s.Kind)
		b.WriteByte(' ')
	}
	if s.Receiver != "" {
		b.WriteString(receiverType(s.Receiver))
		b.WriteByte('.')
	}
	b.WriteString(s.Name)
	if s.Signature != "" {
		switch s.Signature[0] {
		case '(', '[', '<', ':', ',':
		default:
			b.WriteByte(' ')
		}
		b.WriteString(s.Signature)
	}
	return b.String()
}

// exampleSymbol picks the symbol the read_symbol hint shows, among syms
// (all is the whole file, for ids): the first method or function (what is
// read most) that a short id names alone, else the first function, else
// the first addressable symbol.
func exampleSymbol(syms, all []*Symbol) *Symbol {
	var firstFunc, first *Symbol
	var found *Symbol
	walkQualified(syms, "", func(s *Symbol, _ string) {
		switch {
		case found != nil:
		case isCallable(s.Kind):
			if _, unique := idFor(all, s); unique {
				found = s
			} else if firstFunc == nil {
				firstFunc = s
			}
		case first == nil:
			first = s
		}
	})
	for _, s := range []*Symbol{found, firstFunc, first} {
		if s != nil {
			return s
		}
	}
	return nil
}
