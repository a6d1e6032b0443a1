package importfix

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/imports"
)

// Result is what Fix made of a file's new content.
type Result struct {
	// Data is the new content with the imports Fix could settle fixed;
	// the content given, unchanged, when none needed fixing.
	Data []byte
	// Added and Removed are the import paths Fix added and removed.
	Added, Removed []string
	// Unresolved says what Fix left for the language server, one
	// phrase each ("rand: two packages export Int"); empty when the
	// imports are complete.
	Unresolved []string
}

// Done says whether Fix settled every import the change disturbed.
func (r Result) Done() bool { return len(r.Unresolved) == 0 }

// Fix fixes the imports of newSrc, the content filename is to have, for
// what changed from oldSrc (nil for a new file). siblings are the other
// files of filename's directory as they are to be (Go files; those of
// another package are skipped). See the package comment for what it
// settles; err is only for content that does not parse (nothing to fix
// then: the diff shows it).
func Fix(filename string, oldSrc, newSrc []byte, siblings [][]byte) (Result, error) {
	res := Result{Data: newSrc}
	fset := token.NewFileSet()
	nf, err := parser.ParseFile(fset, filename, newSrc, parser.ParseComments)
	if err != nil {
		return res, fmt.Errorf("%s does not parse: %w", filename, err)
	}
	var oldRefs refs
	if oldSrc != nil {
		if of, err := parser.ParseFile(token.NewFileSet(), filename, oldSrc, 0); err == nil {
			oldRefs = qualifiers(of)
		}
	}
	newRefs := qualifiers(nf)

	var remove, add []spec
	provided := map[string]bool{}
	for _, is := range nf.Imports {
		s := specOf(is)
		if s.name == "_" || s.name == "." {
			continue
		}
		name, sure := s.localName()
		if newRefs[name] != nil || oldRefs[name] == nil {
			provided[name] = true // used, or unused before the change too: not the change's doing
			continue
		}
		if !sure {
			provided[name] = true
			res.Unresolved = append(res.Unresolved, fmt.Sprintf("%s: its package name is not known without the module graph (is it still used?)", s.path))
			continue
		}
		remove = append(remove, s)
	}

	var local map[string]bool // the package's own top-level names, read on need
	var sibImports map[string][]spec
	for _, name := range slices.Sorted(maps.Keys(newRefs)) {
		if provided[name] || oldRefs[name] != nil {
			continue // imported, or used before the change (whatever provided it still does)
		}
		if local == nil {
			local, sibImports = siblingNames(nf.Name.Name, siblings)
		}
		if local[name] {
			continue // a variable of the package, not a package
		}
		if cands := uniqueSpecs(sibImports[name]); len(cands) == 1 {
			add = append(add, cands[0])
			continue
		} else if len(cands) > 1 {
			res.Unresolved = append(res.Unresolved, fmt.Sprintf("%s: the package's files import %d packages by that name", name, len(cands)))
			continue
		}
		switch cands := stdlibFor(name, newRefs[name]); {
		case len(cands) == 1, len(cands) > 1 && name == "rand":
			add = append(add, spec{path: cands[0]})
		case len(cands) > 1:
			res.Unresolved = append(res.Unresolved, fmt.Sprintf("%s: %s all export what it uses", name, strings.Join(cands, ", ")))
		default:
			res.Unresolved = append(res.Unresolved, fmt.Sprintf("%s: not a standard-library package (only the module graph can name it)", name))
		}
	}
	if len(remove) == 0 && len(add) == 0 {
		return res, nil
	}
	out, err := rewriteImports(fset, nf, newSrc, remove, add)
	if err != nil {
		res.Unresolved = append(res.Unresolved, err.Error())
		return res, nil
	}
	res.Data = out
	for _, s := range remove {
		res.Removed = append(res.Removed, s.path)
	}
	for _, s := range add {
		res.Added = append(res.Added, s.path)
	}
	return res, nil
}

// refs maps a qualifier (a name no declaration in the file resolves, used
// as X in X.Sel) to the selectors used with it.
type refs map[string]map[string]bool

// qualifiers are f's package references, as goimports collects them: a
// selector whose left side the parser could not resolve within the file.
func qualifiers(f *ast.File) refs {
	out := refs{}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil || x.Name == "_" {
			return true
		}
		if out[x.Name] == nil {
			out[x.Name] = map[string]bool{}
		}
		out[x.Name][sel.Sel.Name] = true
		return true
	})
	return out
}

// spec is an import: its path and the name it was given ("" for none).
type spec struct{ name, path string }

func specOf(is *ast.ImportSpec) spec {
	p, _ := strconv.Unquote(is.Path.Value)
	s := spec{path: p}
	if is.Name != nil {
		s.name = is.Name.Name
	}
	return s
}

// localName is the name s's package is used under, and whether that is
// sure: given, or a standard-library package's. Otherwise it is the name
// goimports assumes from the path, which the package clause may belie.
func (s spec) localName() (string, bool) {
	if s.name != "" {
		return s.name, true
	}
	if stdlib()[s.path] != nil {
		return stdlibName(s.path), true
	}
	return assumedName(s.path), false
}

// assumedName is goimports' guess at a package's name from its import
// path (x/tools' ImportPathToAssumedName): the last element that is not
// a major version, without a "go-" prefix, up to its first '.' or '-'.
func assumedName(p string) string {
	base := stdlibName(p)
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexFunc(base, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r >= 0x80)
	}); i >= 0 {
		base = base[:i]
	}
	return base
}

// siblingNames reads the sibling files of package pkg: the names they
// declare at top level, and their imports by the name they are used
// under (given, or the standard library's, or assumed from the path).
func siblingNames(pkg string, siblings [][]byte) (map[string]bool, map[string][]spec) {
	local := map[string]bool{}
	imps := map[string][]spec{}
	for _, src := range siblings {
		f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
		if f == nil || f.Name == nil || f.Name.Name != pkg {
			continue
		}
		_ = err // a sibling that does not parse whole still names what it can
		for _, is := range f.Imports {
			s := specOf(is)
			if s.name == "_" || s.name == "." {
				continue
			}
			name, _ := s.localName()
			imps[name] = append(imps[name], s)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					local[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							local[n.Name] = true
						}
					case *ast.TypeSpec:
						local[sp.Name.Name] = true
					}
				}
			}
		}
	}
	return local, imps
}

func uniqueSpecs(ss []spec) []spec {
	var out []spec
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// rewriteImports removes and adds imports in the import declarations of
// src alone: they are cut out into a file of their own, changed there
// (astutil, as goimports changes them), formatted as goimports formats
// imports (golang.org/x/tools/imports with FormatOnly, which runs
// nothing), and put back; every other byte of src stays.
func rewriteImports(fset *token.FileSet, f *ast.File, src []byte, remove, add []spec) ([]byte, error) {
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	lineEnd := func(i int) int {
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j + 1
		}
		return len(src)
	}
	var first, last *ast.GenDecl
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			break
		}
		if first == nil {
			first = g
		}
		last = g
	}
	start := lineEnd(off(f.Name.End())) // no imports yet: just after the package clause
	end := start
	if first != nil {
		from := first.Pos()
		if first.Doc != nil {
			from = first.Doc.Pos()
		}
		start = bytes.LastIndexByte(src[:off(from)], '\n') + 1
		end = lineEnd(off(last.End()))
	}
	for _, is := range f.Imports {
		if p := off(is.Pos()); p < start || p >= end {
			return nil, errors.New("imports: an import declaration stands apart from the others; not rewritten")
		}
	}

	const head = "package p\n\n"
	mini := append([]byte(head), src[start:end]...)
	mset := token.NewFileSet()
	mf, err := parser.ParseFile(mset, "imports.go", mini, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("imports: the import declarations do not read alone: %v", err)
	}
	for _, s := range remove {
		if !astutil.DeleteNamedImport(mset, mf, s.name, s.path) {
			return nil, fmt.Errorf("imports: %s could not be removed", s.path)
		}
	}
	for _, s := range add {
		astutil.AddNamedImport(mset, mf, s.name, s.path)
	}
	var printed bytes.Buffer
	if err := format.Node(&printed, mset, mf); err != nil {
		return nil, fmt.Errorf("imports: %v", err)
	}
	formatted, err := imports.Process("imports.go", printed.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, fmt.Errorf("imports: %v", err)
	}
	block := bytes.TrimLeft(bytes.TrimPrefix(formatted, []byte("package p\n")), "\n")

	var out bytes.Buffer
	out.Grow(len(src) + len(block))
	switch {
	case first == nil:
		out.Write(src[:start])
		out.WriteByte('\n')
		out.Write(block)
	case len(block) == 0:
		out.Write(src[:start])
		if bytes.HasSuffix(src[:start], []byte("\n\n")) {
			for end < len(src) && src[end] == '\n' {
				end++ // the blank lines that set the imports apart
			}
		}
	default:
		out.Write(src[:start])
		out.Write(block)
	}
	out.Write(src[end:])
	if _, err := parser.ParseFile(token.NewFileSet(), "", out.Bytes(), parser.ImportsOnly); err != nil {
		return nil, fmt.Errorf("imports: the rewritten imports do not parse: %v", err)
	}
	return out.Bytes(), nil
}
