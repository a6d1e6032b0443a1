package locate

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"cchub/workspace"
)

// OutlineOptions tunes Outline. The zero value gives the defaults.
type OutlineOptions struct {
	// LongFunctionLines: functions longer than this list their top-level
	// control-flow blocks as children; 0 means 150.
	LongFunctionLines int
	// MaxFiles bounds how many files a directory outline parses; 0 means 200.
	MaxFiles int
}

const (
	defaultLongFunctionLines = 150
	defaultMaxFiles          = 200
	// maxOtherListed bounds the names of files without an outline that a
	// directory outline lists; the rest are counted.
	maxOtherListed = 40
	// maxDirSymbols bounds the symbols shown on one file's line of a
	// directory outline.
	maxDirSymbols = 30
)

// Symbol is one declaration (or, for long functions, one top-level
// control-flow block) in a file.
//
// StartLine..EndLine is the whole declaration: it includes the decorators,
// annotations, attributes and C++ template header written before it, and
// an `export` keyword, but not the doc comment above it (whose first line
// is in Doc). For Go this is exactly go/ast's Pos()..End() of a FuncDecl,
// of an ungrouped GenDecl, or of a Spec inside a grouped one.
type Symbol struct {
	// Kind is one of: func, method, class, struct, union, interface, type,
	// enum, record, annotation, trait, impl, const, var, field, module,
	// namespace, macro, import, init, main, call, assign, stmt, and the
	// block kinds if, for, while, do, loop, switch, select, try, with,
	// match.
	Kind string `json:"kind"`
	// Name is the declared name. It is empty for a Go const/var/type group,
	// whose Children are its specs. For an import summary it lists the
	// imported modules; for a block it is the block's header.
	Name string `json:"name"`
	// Receiver is a Go method's receiver, "(s *Store)".
	Receiver string `json:"receiver,omitempty"`
	// Signature is short: type parameters, parameters and result for
	// functions; the type and a clipped value for constants and variables;
	// the bases of a class; the header of a Rust impl.
	Signature  string   `json:"signature,omitempty"`
	Doc        string   `json:"doc,omitempty"`
	Decorators []string `json:"decorators,omitempty"`
	// Modifiers are the keywords that change what a function or member
	// is: static, async, get, set.
	Modifiers []string  `json:"modifiers,omitempty"`
	StartLine int       `json:"start_line"`
	EndLine   int       `json:"end_line"`
	Children  []*Symbol `json:"children,omitempty"`
}

// LineRange is an inclusive range of 1-based lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// FileOutline is the outline of one file.
type FileOutline struct {
	Path     string    `json:"path"`
	Lines    int       `json:"lines"`
	Language string    `json:"language"`
	Symbols  []*Symbol `json:"symbols"`
	// Unparsed lists the line ranges the parser could not make sense of;
	// symbols in them are missing from Symbols.
	Unparsed []LineRange `json:"unparsed,omitempty"`
}

// OutlineResult is what Outline returns: a file's outline or a
// directory's map.
type OutlineResult struct {
	File *FileOutline `json:"file,omitempty"`
	Dir  *DirOutline  `json:"dir,omitempty"`
}

// Outline returns the outline of the file at path, or the bounded map of
// the directory at path. Trees come from cache.
func Outline(ctx context.Context, root *workspace.Root, cache *workspace.ParseCache, p string, opts OutlineOptions) (*OutlineResult, error) {
	if opts.LongFunctionLines <= 0 {
		opts.LongFunctionLines = defaultLongFunctionLines
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = defaultMaxFiles
	}
	abs, rel, st, err := resolveExisting(ctx, root, p)
	if err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	if st.IsDir() {
		d, err := outlineDir(ctx, root, cache, rel, opts)
		if err != nil {
			return nil, err
		}
		return &OutlineResult{Dir: d}, nil
	}
	f, _, err := outlineFile(ctx, cache, abs, rel, opts)
	if err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	return &OutlineResult{File: f}, nil
}

// errUnsupported says which languages have outlines and what to do instead.
func errUnsupported(rel string) error {
	ext := path.Ext(rel)
	what := fmt.Sprintf("%q files", ext)
	if ext == "" {
		what = "files without an extension"
	}
	return fmt.Errorf("%s: no outline for %s; outline supports %s; use read to see this file",
		rel, what, strings.Join(workspace.LanguageNames(), ", "))
}

// outlineFile reads, parses and outlines one file, and returns its
// source too.
func outlineFile(ctx context.Context, cache *workspace.ParseCache, abs, rel string, opts OutlineOptions) (*FileOutline, []byte, error) {
	lang := workspace.LanguageFor(rel)
	if lang == nil {
		if _, err := workspace.ReadText(abs, rel); errors.Is(err, workspace.ErrBinary) {
			return nil, nil, err // "use read" would not help
		}
		return nil, nil, errUnsupported(rel)
	}
	src, err := workspace.ReadText(abs, rel)
	if err != nil {
		return nil, nil, err
	}
	tree, err := cache.Parse(ctx, rel, lang, src)
	if err != nil {
		return nil, nil, err
	}
	defer tree.Release()
	f := outlineTree(tree, opts.LongFunctionLines)
	f.Path = rel
	return f, src, nil
}

// outlineTree is the pure core: a parsed tree in, an outline out.
func outlineTree(tree *workspace.Tree, longLines int) *FileOutline {
	x := newExtractor(tree.Source, tree.Lang.Name, longLines)
	defer x.close()
	root := tree.RootNode()
	f := &FileOutline{
		Lines:    lineCount(tree.Source),
		Language: tree.Lang.Name,
		Symbols:  x.symbols(root),
		Unparsed: x.syntaxErrors(root),
	}
	if f.Symbols == nil {
		f.Symbols = []*Symbol{}
	}
	tidy(f.Symbols)
	return f
}

// tidy trims the signatures the extractors assembled from parts.
func tidy(syms []*Symbol) {
	for _, s := range syms {
		s.Signature = strings.TrimSpace(s.Signature)
		tidy(s.Children)
	}
}

// lineCount counts lines the way read numbers them: a last line without
// a newline still counts.
func lineCount(src []byte) int {
	n := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// Text renders the result for a model: compact, one line per symbol.
func (r *OutlineResult) Text() string {
	switch {
	case r == nil:
		return ""
	case r.File != nil:
		return r.File.Text()
	case r.Dir != nil:
		return r.Dir.Text()
	}
	return ""
}

// Text renders one file's outline:
//
//	store/store.go (119 lines, go)
//	L4-11 import errors, fmt, sort, sync, example.com/shop/pricing
//	L58-60 func New(name string) *Store // New returns an empty store called name.
//	L66-74 method (s *Store) Add(it Item) error // Add puts it on the shelf.
//	read one symbol: read_symbol id=<path>:<line>:<name>, e.g. id=store/store.go:58:New
func (f *FileOutline) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d lines, %s)\n", f.Path, f.Lines, f.Language)
	if len(f.Symbols) == 0 {
		if len(f.Unparsed) == 0 {
			b.WriteString("no declarations or top-level statements; use read to see the file\n")
		} else {
			b.WriteString("no declarations could be parsed\n")
		}
	}
	for _, s := range f.Symbols {
		writeSymbol(&b, s, 0)
	}
	if len(f.Unparsed) > 0 {
		b.WriteString("syntax errors at ")
		for i, r := range f.Unparsed {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(lineSpan(r.Start, r.End))
		}
		b.WriteString("\n")
	}
	if ex := exampleSymbol(f.Symbols); ex != nil {
		fmt.Fprintf(&b, "read one symbol: read_symbol id=<path>:<line>:<name>, e.g. id=%s:%d:%s\n", f.Path, ex.StartLine, ex.Name)
	}
	return b.String()
}

func writeSymbol(b *strings.Builder, s *Symbol, depth int) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
	b.WriteString(lineSpan(s.StartLine, s.EndLine))
	b.WriteByte(' ')
	b.WriteString(symbolHead(s))
	if s.Doc != "" {
		b.WriteString(" // ")
		b.WriteString(s.Doc)
	}
	b.WriteByte('\n')
	for _, c := range s.Children {
		writeSymbol(b, c, depth+1)
	}
}

// symbolHead is a symbol's line without its range and doc:
// decorators, kind, receiver, name and signature.
func symbolHead(s *Symbol) string {
	var b strings.Builder
	for _, d := range s.Decorators {
		b.WriteString(d)
		b.WriteByte(' ')
	}
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
	b.WriteString(s.Kind)
	b.WriteByte(' ')
	if s.Receiver != "" {
		b.WriteString(s.Receiver)
		b.WriteByte(' ')
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

func lineSpan(start, end int) string {
	if end <= start {
		return fmt.Sprintf("L%d", start)
	}
	return fmt.Sprintf("L%d-%d", start, end)
}

// exampleSymbol picks the symbol the read_symbol hint shows: the first
// function, method or type, else the first named symbol.
func exampleSymbol(syms []*Symbol) *Symbol {
	var first *Symbol
	var walk func([]*Symbol) *Symbol
	walk = func(ss []*Symbol) *Symbol {
		for _, s := range ss {
			if addressable(s) {
				switch s.Kind {
				case "func", "method", "class", "struct", "interface", "trait", "enum", "type":
					return s
				}
				if first == nil {
					first = s
				}
			}
			if r := walk(s.Children); r != nil {
				return r
			}
		}
		return nil
	}
	if s := walk(syms); s != nil {
		return s
	}
	return first
}
