package outline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"cchub/syntax"
	"cchub/workspace"
)

// Options tunes Of. The zero value gives the defaults.
type Options struct {
	// LongFunctionLines: functions longer than this list their top-level
	// control-flow blocks as children; 0 means 150.
	LongFunctionLines int
	// MaxFiles bounds how many files a directory outline parses; 0 means
	// all of them.
	MaxFiles int
	// Match keeps only the symbols whose name matches it, with the
	// symbols that contain them (see matchName); a directory outline keeps
	// only the files that have one.
	Match string
	// Detail asks the text form for doc summaries, decorators, every
	// member of a group and the blocks of long functions.
	Detail bool
}

const (
	defaultLongFunctionLines = 150
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

// File is the outline of one file.
type File struct {
	Path     string    `json:"path"`
	Lines    int       `json:"lines"`
	Language string    `json:"language"`
	Symbols  []*Symbol `json:"symbols"`
	// Unparsed lists the line ranges the parser could not make sense of;
	// symbols in them are missing from Symbols.
	Unparsed []LineRange `json:"unparsed,omitempty"`
	// Match is the name filter the symbols were kept by, if any.
	Match string `json:"match,omitempty"`
	// all is every symbol of the file, when Symbols is filtered: ids are
	// made unique among all of them.
	all []*Symbol
}

// Result is what Of returns: a file's outline or a directory's map.
type Result struct {
	File *File `json:"file,omitempty"`
	Dir  *Dir  `json:"dir,omitempty"`
	// Detail is the text form asked for (Options.Detail).
	Detail bool `json:"-"`
}

// Of returns the outline of the file at path, or the map of the directory
// at path. Trees come from cache.
func Of(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, p string, opts Options) (*Result, error) {
	if opts.LongFunctionLines <= 0 {
		opts.LongFunctionLines = defaultLongFunctionLines
	}
	if opts.Match != "" {
		if _, err := path.Match(opts.Match, ""); err != nil {
			return nil, fmt.Errorf("outline: match %q is not a valid glob (%v); use * and ? as wildcards, or a plain part of the name", opts.Match, err)
		}
	}
	_, rel, st, err := root.ResolveExisting(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	if st.IsDir() {
		d, err := outlineDir(ctx, root, cache, rel, opts)
		if err != nil {
			return nil, err
		}
		return &Result{Dir: d, Detail: opts.Detail}, nil
	}
	f, _, err := fileOutline(ctx, root, cache, rel, opts)
	if err != nil {
		return nil, fmt.Errorf("outline: %w", err)
	}
	if opts.Match != "" {
		f.all = f.Symbols
		f.Symbols, f.Match = keepMatching(f.Symbols, opts.Match, ""), opts.Match
	}
	return &Result{File: f, Detail: opts.Detail}, nil
}

// errUnsupported says which languages have outlines and what to do instead.
func errUnsupported(rel string) error {
	ext := path.Ext(rel)
	what := fmt.Sprintf("%q files", ext)
	if ext == "" {
		what = "files without an extension"
	}
	return fmt.Errorf("%s: no outline for %s; outline supports %s; use read to see this file",
		rel, what, strings.Join(syntax.LanguageNames(), ", "))
}

// errTooBig says that rel is not parsed, why (tooBig, a
// *syntax.TooBigError) and how to read it instead. It wraps
// syntax.ErrTooBig.
func errTooBig(rel string, tooBig error) error {
	return fmt.Errorf("%s is %w; read it in parts (read path=%s offset=1 limit=200) or find a name in it (grep pattern=NAME path=%s)",
		rel, tooBig, rel, rel)
}

// outlineFile reads, parses and outlines one file, and returns its
// source too.
func fileOutline(ctx context.Context, root *workspace.Root, cache *syntax.ParseCache, rel string, opts Options) (*File, []byte, error) {
	language := syntax.LanguageFor(rel)
	if language == nil {
		if _, err := root.ReadText(rel); errors.Is(err, workspace.ErrBinary) {
			return nil, nil, err // "use read" would not help
		}
		return nil, nil, errUnsupported(rel)
	}
	src, err := root.ReadText(rel)
	if err != nil {
		return nil, nil, err
	}
	tree, err := cache.Parse(ctx, rel, language, src)
	if tb := (*syntax.TooBigError)(nil); errors.As(err, &tb) {
		return nil, nil, errTooBig(rel, tb)
	}
	if err != nil {
		return nil, nil, err
	}
	defer tree.Release()
	f := outlineTree(tree, opts.LongFunctionLines)
	f.Path = rel
	return f, src, nil
}

// outlineTree is the pure core: a parsed tree in, an outline out.
func outlineTree(tree *syntax.Tree, longLines int) *File {
	x := newExtractor(tree.Source, tree.Lang.Name, longLines)
	defer x.close()
	root := x.root(tree.RootNode())
	f := &File{
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
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// keepMatching returns the symbols whose name matches pattern, with the
// symbols that contain a match (the match's own children are kept whole).
func keepMatching(syms []*Symbol, pattern, prefix string) []*Symbol {
	out := []*Symbol{}
	for _, s := range syms {
		q := qualified(s, prefix)
		if addressable(s) && (matchName(pattern, s.Name) || matchName(pattern, q)) {
			out = append(out, s)
			continue
		}
		if kids := keepMatching(s.Children, pattern, childPrefix(s, prefix)); len(kids) > 0 {
			c := *s
			c.Children = kids
			out = append(out, &c)
		}
	}
	return out
}

// matchName matches a name against an outline's match filter: a glob
// (* and ?) matched case-insensitively against the whole name, or, with
// no wildcard, a case-insensitive part of the name.
func matchName(pattern, name string) bool {
	p, n := strings.ToLower(pattern), strings.ToLower(name)
	if !strings.ContainsAny(p, "*?[") {
		return strings.Contains(n, p)
	}
	ok, _ := path.Match(p, n)
	return ok
}

// OfTree is the outline of an already parsed file: its symbols with exact
// ranges, for a package that holds the tree for its own reasons (the code
// graph reads calls from the same tree).
func OfTree(tree *syntax.Tree) *File {
	return outlineTree(tree, defaultLongFunctionLines)
}
