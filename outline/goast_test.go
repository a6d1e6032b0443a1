package outline

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// goASTSymbols lists what the outline must show for a Go file, computed
// by go/parser: every top-level func and method, and every name of a
// type, const or var declaration, with go/ast's line ranges and doc.
// Grouped declarations are "kind ()" lines followed by their specs.
func goASTSymbols(t *testing.T, abs string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, abs, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("go/parser: %v", err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	doc := func(g *ast.CommentGroup) string {
		if g == nil {
			return ""
		}
		return summary(strings.Split(g.Text(), "\n"))
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			kind := "func"
			if d.Recv != nil {
				kind = "method"
			}
			out = append(out, fmt.Sprintf("%s %s L%d-%d %q", kind, d.Name.Name, line(d.Pos()), line(d.End()), doc(d.Doc)))
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			grouped := d.Lparen.IsValid()
			if grouped {
				out = append(out, fmt.Sprintf("%s () L%d-%d %q", d.Tok, line(d.Pos()), line(d.End()), doc(d.Doc)))
			}
			for _, sp := range d.Specs {
				from, to, dc := d.Pos(), d.End(), d.Doc
				if grouped {
					from, to = sp.Pos(), sp.End()
				}
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if grouped {
						dc = sp.Doc
						if dc == nil {
							dc = sp.Comment
						}
					}
					kind := "type"
					switch sp.Type.(type) {
					case *ast.StructType:
						kind = "struct"
					case *ast.InterfaceType:
						kind = "interface"
					}
					out = append(out, fmt.Sprintf("  %s %s L%d-%d %q", kind, sp.Name.Name, line(from), line(to), doc(dc)))
				case *ast.ValueSpec:
					if grouped {
						dc = sp.Doc
						if dc == nil {
							dc = sp.Comment
						}
					}
					for _, n := range sp.Names {
						out = append(out, fmt.Sprintf("  %s %s L%d-%d %q", d.Tok, n.Name, line(from), line(to), doc(dc)))
					}
				}
			}
		}
	}
	return out
}

// outlineGoSymbols renders our outline of a Go file in goASTSymbols' form.
func outlineGoSymbols(f *File) []string {
	var out []string
	for _, s := range f.Symbols {
		switch {
		case s.Kind == "import":
		case s.Name == "":
			out = append(out, fmt.Sprintf("%s () L%d-%d %q", s.Kind, s.StartLine, s.EndLine, s.Doc))
			for _, c := range s.Children {
				out = append(out, fmt.Sprintf("  %s %s L%d-%d %q", c.Kind, c.Name, c.StartLine, c.EndLine, c.Doc))
			}
		case s.Kind == "func" || s.Kind == "method":
			out = append(out, fmt.Sprintf("%s %s L%d-%d %q", s.Kind, s.Name, s.StartLine, s.EndLine, s.Doc))
		default:
			out = append(out, fmt.Sprintf("  %s %s L%d-%d %q", s.Kind, s.Name, s.StartLine, s.EndLine, s.Doc))
		}
	}
	return out
}

func outlineGoroot(t testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		wstest.RequirePeer(t, "go env GOROOT ("+err.Error()+")", false)
	}
	return strings.TrimSpace(string(out))
}

// TestOutlineGoMatchesGoAST cross-checks every top-level declaration's
// kind, name, line range and doc summary against go/parser, on the
// fixture module and on real files from GOROOT.
func TestOutlineGoMatchesGoAST(t *testing.T) {
	type dir struct{ root, glob string }
	dirs := []dir{
		{fixtureDir(t, "go"), "*.go"},
		{fixtureDir(t, "go"), "store/*.go"},
		{fixtureDir(t, "go"), "pricing/*.go"},
	}
	src := filepath.Join(outlineGoroot(t), "src")
	for _, d := range []string{"net/http", "go/ast", "strings", "sort", "encoding/json", "os/exec"} {
		dirs = append(dirs, dir{src, d + "/*.go"})
	}
	cache := syntax.NewParseCache(0)
	files := 0
	for _, d := range dirs {
		root, err := workspace.Open(d.root)
		if err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(d.root, d.glob))
		for _, abs := range matches {
			rel, _ := filepath.Rel(d.root, abs)
			files++
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				r, err := Of(context.Background(), root, cache, rel, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.File.Unparsed) > 0 {
					t.Errorf("syntax errors reported in a file go/parser accepts: %v", r.File.Unparsed)
				}
				want := goASTSymbols(t, abs)
				got := outlineGoSymbols(r.File)
				if diff := diffSymbolLines(want, got); diff != "" {
					t.Errorf("outline differs from go/ast (-ast +outline):\n%s", diff)
				}
			})
		}
	}
	if files < 50 {
		t.Errorf("cross-checked only %d files; the GOROOT sample is missing", files)
	}
}

// diffSymbolLines is a small line diff for test failures: what only want has,
// then what only got has, in order.
func diffSymbolLines(want, got []string) string {
	var b strings.Builder
	n := max(len(want), len(got))
	for i := 0; i < n; i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "-%s\n+%s\n", w, g)
		}
	}
	return b.String()
}

// fixtureDir returns the absolute path of testdata/workspaces/name.
func fixtureDir(t testing.TB, name string) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("..", "testdata", "workspaces", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return abs
}
