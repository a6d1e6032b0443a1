package codegraph

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"cchub/syntax"
)

// oraclePackages are the standard-library packages the graph is measured
// on: small enough to type-check from source in seconds, and calling one
// another (json → strconv, bytes, base64; template → parse, url; scanner
// → token) so that calls through imports are measured too.
var oraclePackages = []string{
	"bufio", "bytes", "container/heap", "container/list", "encoding/base64",
	"encoding/json", "go/scanner", "go/token", "net/url", "path", "sort",
	"strconv", "strings", "text/template", "text/template/parse", "unicode/utf8",
}

// What go/types says a call site calls.
const (
	calleeFunc       = "func"       // a function or concrete method declared in the indexed packages
	calleeInterface  = "interface"  // a method called through an interface
	calleeOutside    = "outside"    // a function declared in a package not indexed
	calleeBuiltin    = "builtin"    // len, append, …
	calleeConversion = "conversion" // T(x): a type, not a call
	calleeValue      = "value"      // a variable, field or result of func type
)

// callSite is where a call names what it calls: the file as under
// GOROOT/src, and the line and column of the called name.
type callSite struct {
	path      string
	line, col int
}

func (s callSite) String() string { return fmt.Sprintf("%s:%d:%d", s.path, s.line, s.col) }

// declaration is where a function is declared: the line of its func
// keyword (of its name, for an interface method), as Def.Start counts.
type declaration struct {
	path string
	line int
}

// truth is what go/types says one call site calls.
type truth struct {
	kind      string
	name      string
	callee    declaration // for calleeFunc, and calleeInterface when the interface is indexed
	viaImport bool        // pkg.F: named through an import
}

// The graph's Go call edges on real standard-library packages, measured
// against the calls go/types resolves: precision of each confidence
// class, and how many of the true calls between the indexed packages the
// graph finds. A resolution change that makes exact or import edges wrong,
// or loses calls, fails here.
func TestOracleGoStd(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks standard-library packages from source")
	}
	src := filepath.Join(build.Default.GOROOT, "src")
	if _, err := os.Stat(filepath.Join(src, "strings", "strings.go")); err != nil {
		t.Skipf("no standard-library source under GOROOT (%s): %v", build.Default.GOROOT, err)
	}
	start := time.Now()
	files := stdFiles(t, src)
	x := NewMemIndex()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	n := 0
	for _, rels := range files {
		for _, rel := range rels {
			text, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Extract(context.Background(), cache, rel, text)
			if err != nil || f == nil {
				t.Fatalf("extract %s: %v", rel, err)
			}
			x.Put(rel, f)
			n++
		}
	}
	indexed := time.Since(start)
	want := oracleCalls(t, src, files)
	checked := time.Since(start) - indexed
	s := compare(want, graphEdges(t, x))
	t.Logf("%d packages, %d files: extracted in %v, type-checked in %v, resolved and compared in %v", len(files), n,
		indexed.Round(time.Millisecond), checked.Round(time.Millisecond), (time.Since(start) - indexed - checked).Round(time.Millisecond))
	s.report(t)

	// Floors a little under what the graph does today, so that a
	// regression in resolution, or in where extraction puts a call or a
	// definition, falls through one. A class with few judged edges is not
	// held to a floor: a handful of edges measures nothing.
	const fewEdges = 50
	floors := []struct {
		what       string
		got, floor float64
		edges      int
	}{
		{"exact precision", s.precision(Exact), 0.97, s.byClass[Exact].judged},
		{"import precision", s.precision(Imported), 0.95, s.byClass[Imported].judged},
		{"recall with exact edges", s.recall(Exact), 0.87, s.truths},               // 0.650 before type facts (types.go)
		{"recall with exact and import edges", s.recall(Imported), 0.96, s.truths}, // 0.743 before
		{"recall with all edges", s.recall(NameOnly), 0.99, s.truths},              // 0.939 before
		{"share of edges at a call go/types sees", 1 - share(len(s.unknown), s.edges()), 0.99, s.edges()},
	}
	for _, f := range floors {
		switch {
		case f.edges < fewEdges:
			t.Logf("%s (%.3f) not held to its floor %.2f: it is of %d edges", f.what, f.got, f.floor, f.edges)
		case f.got < f.floor:
			t.Errorf("%s is %.3f, under its floor %.2f", f.what, f.got, f.floor)
		}
	}
}

// stdFiles lists the non-test Go files of each oracle package that build
// for this platform, as paths under GOROOT/src.
func stdFiles(t *testing.T, src string) map[string][]string {
	files := map[string][]string{}
	for _, pkg := range oraclePackages {
		bp, err := build.Default.ImportDir(filepath.Join(src, filepath.FromSlash(pkg)), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, name := range bp.GoFiles {
			files[pkg] = append(files[pkg], pkg+"/"+name)
		}
	}
	return files
}

// oracleCalls type-checks the packages from source and says what each
// call site in their files calls.
func oracleCalls(t *testing.T, src string, files map[string][]string) map[callSite]truth {
	fset := token.NewFileSet()
	// Export data for the standard library is not shipped; "source"
	// type-checks dependencies from GOROOT/src, each once.
	imp := importer.ForCompiler(fset, "source", nil)
	inIndex := map[string]string{} // absolute file name → path under GOROOT/src
	for _, rels := range files {
		for _, rel := range rels {
			inIndex[filepath.Join(src, filepath.FromSlash(rel))] = rel
		}
	}
	// The name of a function is where go/types puts it; the graph's
	// definition starts at the func keyword.
	funcLine := map[token.Position]int{}
	out := map[callSite]truth{}
	for _, pkg := range oraclePackages {
		var asts []*ast.File
		for _, rel := range files[pkg] {
			f, err := parser.ParseFile(fset, filepath.Join(src, filepath.FromSlash(rel)), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			asts = append(asts, f)
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcLine[fset.Position(fd.Name.Pos())] = fset.Position(fd.Pos()).Line
				}
			}
		}
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(pkg, fset, asts, info); err != nil {
			t.Fatalf("type-check %s: %v", pkg, err)
		}
		declOf := func(fn *types.Func) (declaration, bool) {
			p := fset.Position(fn.Pos())
			rel, ok := inIndex[p.Filename]
			if !ok {
				return declaration{}, false
			}
			line := p.Line
			if l, ok := funcLine[p]; ok {
				line = l
			}
			return declaration{rel, line}, true
		}
		for _, f := range asts {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				id, on := calledName(call.Fun)
				if id == nil {
					return true // (func(){…})(), f()(): no name to find
				}
				p := fset.Position(id.Pos())
				site := callSite{inIndex[p.Filename], p.Line, p.Column}
				tr := truth{name: id.Name, viaImport: isPackage(info, on)}
				tv := info.Types[call.Fun]
				fn, isFunc := info.Uses[id].(*types.Func)
				switch {
				case tv.IsType():
					tr.kind = calleeConversion
				case tv.IsBuiltin():
					tr.kind = calleeBuiltin
				case !isFunc:
					tr.kind = calleeValue
				default:
					fn = fn.Origin()
					decl, ok := declOf(fn)
					recv := fn.Signature().Recv()
					switch {
					case recv != nil && types.IsInterface(recv.Type()):
						tr.kind, tr.callee = calleeInterface, decl
					case ok:
						tr.kind, tr.callee = calleeFunc, decl
					default:
						tr.kind = calleeOutside
					}
				}
				out[site] = tr
				return true
			})
		}
	}
	return out
}

// calledName is the identifier a call names its callee by, and what it
// is selected from (nil for a bare name): f in f(x), F and pkg in
// pkg.F(x), M and v in v.M(x); f in f[T](x) and (f)(x).
func calledName(fun ast.Expr) (name *ast.Ident, on ast.Expr) {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
		case *ast.IndexExpr:
			fun = e.X
		case *ast.IndexListExpr:
			fun = e.X
		case *ast.SelectorExpr:
			return e.Sel, e.X
		case *ast.Ident:
			return e, nil
		default:
			return nil, nil
		}
	}
}

// isPackage says whether e names an imported package.
func isPackage(info *types.Info, e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	_, isPkg := info.Uses[id].(*types.PkgName)
	return isPkg
}

// graphEdges is every resolved edge of the index, by call site, as the
// callers and the callees of its definitions. Both are asked because a
// definition whose path:Name is ambiguous (func Push and the method
// Interface.Push in one file) can be asked for neither: its edges are
// found from the other end, unless that end is ambiguous too, or the top
// level of a file.
func graphEdges(t *testing.T, x *Index) map[callSite][]Edge {
	defs, err := x.Symbols("*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[callSite][]Edge{}
	type edgeKey struct {
		site   callSite
		callee declaration
	}
	seen := map[edgeKey]bool{}
	add := func(es []Edge) {
		for _, e := range es {
			if e.Callee == nil || e.Ref || e.Confidence == Possible {
				continue // unresolved, a function named as a value, a call not linked
			}
			site := callSite{e.Path, e.Line, e.Col}
			k := edgeKey{site, declaration{e.Callee.Path, e.Callee.Start}}
			if seen[k] {
				continue
			}
			seen[k] = true
			out[site] = append(out[site], e)
		}
	}
	var ambiguous []string
	for _, d := range defs {
		name := d.Path + ":" + d.Qual()
		_, callers, err := x.Callers(name)
		if err != nil {
			ambiguous = append(ambiguous, name)
			continue
		}
		_, callees, _ := x.Callees(name)
		add(callers)
		add(callees)
	}
	if len(ambiguous) > 0 {
		t.Logf("%d definitions are ambiguous as path:Name: %s", len(ambiguous), strings.Join(ambiguous, ", "))
	}
	return out
}

// oracleScore is the graph measured against the oracle.
type oracleScore struct {
	byClass map[string]*classScore
	// Calls of functions declared in the indexed packages, and how many
	// the graph reaches with edges no less sure than each class; the same
	// for those of them named through an import (pkg.F).
	truths, imported     int
	found, foundImported map[string]int
	missed               []string
	iface                ifaceScore
	conversions          int      // edges from T(x) to the type T
	unknown              []string // edges where go/types sees no call
}

type classScore struct {
	edges   int            // all of the class
	judged  int            // at a call of a function, a builtin or a func value
	matched int            // to the function go/types says
	wrongAt map[string]int // the judged but not matched, by what go/types says is called
	wrong   []string
}

// ifaceScore is the calls through an interface: go/types names the
// interface's method; the graph, by name only, every method of the name.
type ifaceScore struct {
	sites, toMethod, toOthers int
}

var confidences = []string{Exact, Imported, NameOnly}

func compare(want map[callSite]truth, got map[callSite][]Edge) *oracleScore {
	s := &oracleScore{byClass: map[string]*classScore{}, found: map[string]int{}, foundImported: map[string]int{}}
	for _, c := range confidences {
		s.byClass[c] = &classScore{wrongAt: map[string]int{}}
	}
	for site, es := range got {
		tr, known := want[site]
		for _, e := range es {
			c := s.byClass[e.Confidence]
			c.edges++
			to := declaration{e.Callee.Path, e.Callee.Start}
			switch {
			case !known:
				s.unknown = append(s.unknown, fmt.Sprintf("%s %s → %s:%d (%s)", site, e.Name, to.path, to.line, e.Confidence))
			case tr.kind == calleeInterface:
				if to == tr.callee {
					s.iface.toMethod++
				} else {
					s.iface.toOthers++
				}
			case tr.kind == calleeConversion:
				s.conversions++
			case tr.kind == calleeFunc && to == tr.callee:
				c.judged++
				c.matched++
			default:
				c.judged++
				c.wrongAt[tr.kind]++
				c.wrong = append(c.wrong, fmt.Sprintf("%s %s: graph → %s:%d %s; go/types → %s",
					site, e.Name, to.path, to.line, e.Callee.Qual(), tr.describe()))
			}
		}
	}
	for site, tr := range want {
		switch tr.kind {
		case calleeInterface:
			s.iface.sites++
		case calleeFunc:
			s.truths++
			if tr.viaImport {
				s.imported++
			}
			best := ""
			for _, e := range got[site] {
				if (declaration{e.Callee.Path, e.Callee.Start}) == tr.callee && (best == "" || rank(e.Confidence) < rank(best)) {
					best = e.Confidence
				}
			}
			if best == "" {
				s.missed = append(s.missed, fmt.Sprintf("%s %s → %s:%d", site, tr.name, tr.callee.path, tr.callee.line))
				continue
			}
			for _, c := range confidences {
				if rank(best) <= rank(c) {
					s.found[c]++
					if tr.viaImport {
						s.foundImported[c]++
					}
				}
			}
		}
	}
	for _, c := range s.byClass {
		sort.Strings(c.wrong)
	}
	sort.Strings(s.missed)
	sort.Strings(s.unknown)
	return s
}

func (tr truth) describe() string {
	if tr.kind == calleeFunc {
		return fmt.Sprintf("%s:%d", tr.callee.path, tr.callee.line)
	}
	return tr.kind
}

// precision is the share of the class's judged edges that go where
// go/types says.
func (s *oracleScore) precision(class string) float64 {
	c := s.byClass[class]
	return share(c.matched, c.judged)
}

// recall is the share of calls between the indexed packages the graph
// finds with edges no less sure than class.
func (s *oracleScore) recall(class string) float64 { return share(s.found[class], s.truths) }

// edges is how many edges the graph has at call sites.
func (s *oracleScore) edges() int {
	n := 0
	for _, c := range s.byClass {
		n += c.edges
	}
	return n
}

func share(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

func (s *oracleScore) report(t *testing.T) {
	const examples = 6
	t.Logf("%-10s %6s %6s %7s %9s %7s %14s", "class", "edges", "judged", "matched", "precision", "recall", "recall pkg.F")
	for _, class := range confidences {
		c := s.byClass[class]
		t.Logf("%-10s %6d %6d %7d %9.3f %7.3f %14.3f", class, c.edges, c.judged, c.matched,
			s.precision(class), s.recall(class), share(s.foundImported[class], s.imported))
	}
	t.Logf("recall is cumulative (this class and surer ones), of %d calls between the indexed packages, %d of them pkg.F; %d missed",
		s.truths, s.imported, len(s.missed))
	t.Logf("calls through an interface: %d; %d edges to the interface's method, %d to other methods of the name (not judged)",
		s.iface.sites, s.iface.toMethod, s.iface.toOthers)
	t.Logf("edges from a conversion T(x) to the type (not judged): %d; edges where go/types sees no call: %d", s.conversions, len(s.unknown))
	for _, class := range confidences {
		c := s.byClass[class]
		if len(c.wrong) == 0 {
			continue
		}
		var at []string
		for _, kind := range []string{calleeFunc, calleeOutside, calleeBuiltin, calleeValue} {
			if c.wrongAt[kind] > 0 {
				at = append(at, fmt.Sprintf("%d %s", c.wrongAt[kind], kind))
			}
		}
		t.Logf("wrong %s edges, by what go/types says is called: %s", class, strings.Join(at, ", "))
		logSome(t, "  ", c.wrong, examples)
	}
	t.Logf("missed calls:")
	logSome(t, "  ", s.missed, examples)
	if len(s.unknown) > 0 {
		t.Logf("edges where go/types sees no call:")
		logSome(t, "  ", s.unknown, examples)
	}
}

// logSome logs the first n of lines, and how many more there are.
func logSome(t *testing.T, indent string, lines []string, n int) {
	for i, l := range lines {
		if i == n {
			t.Logf("%s… and %d more", indent, len(lines)-n)
			return
		}
		t.Logf("%s%s", indent, l)
	}
}
