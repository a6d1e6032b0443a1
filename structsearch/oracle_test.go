package structsearch

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// oracleDirs are the GOROOT/src directories the oracle compares on.
var oracleDirs = []string{"net/http", "os", "encoding", "database/sql", "sync", "text/template", "archive", "go/ast"}

// An oracle says, for one file parsed by go/parser, where a pattern
// matches: the byte offsets of the matched nodes.
type oracle func(f *ast.File, fset *token.FileSet, src []byte) []int

// TestOracleGoAST compares structsearch with an independent reading of the
// same files by go/parser and go/ast, for patterns whose meaning DESIGN
// fixes: the same kinds, the same number of children, repeated names equal
// token for token.
func TestOracleGoAST(t *testing.T) {
	if testing.Short() {
		t.Skip("walks part of GOROOT")
	}
	src := wstest.GoSrc(t)
	root, err := workspace.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range oracleDirs {
		if _, err := os.Stat(filepath.Join(src, d)); err == nil {
			dirs = append(dirs, d)
		}
	}
	wstest.RequirePeer(t, "Go's source tree: the oracle directories under "+src, len(dirs) > 0)
	// The files go/parser reads without error; the others (testdata
	// written to fail) have no oracle.
	files := map[string]*ast.File{}
	sources := map[string][]byte{}
	fset := token.NewFileSet()
	for _, d := range dirs {
		for _, f := range corpus(t, filepath.Join(src, d), "go") {
			rel := d + "/" + f.rel
			af, err := parser.ParseFile(fset, rel, f.src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			files[rel], sources[rel] = af, f.src
		}
	}
	t.Logf("%d Go files in %v", len(files), dirs)

	for _, c := range []struct {
		pattern string
		oracle  oracle
	}{
		{`if $X != nil { return $X }`, oracleIfReturn},
		{`$A.Lock()`, oracleLock},
		{`fmt.Println($$$)`, oraclePrintln},
		{`$X = append($X, $$$)`, oracleAppendSelf},
		{`for $K, $V := range $M { $$$ }`, oracleRangeKV},
		// Sequences: runs of statements of one list.
		{"$A.Lock()\ndefer $A.Unlock()", starts(oracleLockDefer(false))},
		{"$A.mu.Lock()\ndefer $A.mu.Unlock()", starts(oracleLockDefer(true))},
		{"$A.Lock()\n$$$\n$A.Unlock()", starts(oracleLockThenUnlock)},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			want := map[string]bool{}
			for rel, af := range files {
				for _, off := range c.oracle(af, fset, sources[rel]) {
					want[fmt.Sprintf("%s@%d", rel, off)] = true
				}
			}
			r, err := Search(context.Background(), root, Options{Pattern: c.pattern, Lang: "go", Paths: dirs})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, m := range r.Matches {
				if files[m.Path] != nil {
					got[fmt.Sprintf("%s@%d", m.Path, m.StartByte)] = true
				}
			}
			if len(want) == 0 {
				t.Fatal("the oracle found nothing: the corpus is too small to compare on")
			}
			onlyUs, onlyOracle := difference(got, want), difference(want, got)
			for _, k := range onlyUs {
				t.Errorf("structsearch matched %s, go/ast did not: %s", k, excerpt(k, sources))
			}
			for _, k := range onlyOracle {
				t.Errorf("go/ast matched %s, structsearch did not: %s", k, excerpt(k, sources))
			}
			t.Logf("%d matches agree (structsearch %d, go/ast %d)", len(want)-len(onlyOracle), len(got), len(want))
		})
	}
}

func difference(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func excerpt(key string, sources map[string][]byte) string {
	var rel string
	var off int
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '@' {
			rel = key[:i]
			fmt.Sscan(key[i+1:], &off)
			break
		}
	}
	src := sources[rel]
	end := min(len(src), off+120)
	return fmt.Sprintf("%q", src[off:end])
}

// tokens lists the tokens of src[from:to], without comments and
// separators, for comparing two expressions token for token.
func goTokens(src []byte, from, to token.Pos, base int) []string {
	var s scanner.Scanner
	fs := token.NewFileSet()
	part := src[int(from)-base : int(to)-base]
	s.Init(fs.AddFile("", -1, len(part)), part, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.SEMICOLON || tok == token.COMMA {
			continue
		}
		out = append(out, tok.String()+lit)
	}
}

func sameExpr(fset *token.FileSet, src []byte, a, b ast.Expr) bool {
	base := fset.File(a.Pos()).Base()
	return slices.Equal(goTokens(src, a.Pos(), a.End(), base), goTokens(src, b.Pos(), b.End(), base))
}

func offset(fset *token.FileSet, p token.Pos) int { return fset.Position(p).Offset }

// if $X != nil { return $X }: no init, no else, a block of one return of
// one result that is the condition's operand, token for token.
func oracleIfReturn(f *ast.File, fset *token.FileSet, src []byte) []int {
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		s, ok := n.(*ast.IfStmt)
		if !ok || s.Init != nil || s.Else != nil || len(s.Body.List) != 1 {
			return true
		}
		cond, ok := s.Cond.(*ast.BinaryExpr)
		if !ok || cond.Op != token.NEQ {
			return true
		}
		if id, ok := cond.Y.(*ast.Ident); !ok || id.Name != "nil" {
			return true
		}
		ret, ok := s.Body.List[0].(*ast.ReturnStmt)
		if ok && len(ret.Results) == 1 && sameExpr(fset, src, cond.X, ret.Results[0]) {
			out = append(out, offset(fset, s.Pos()))
		}
		return true
	})
	return out
}

// $A.Lock(): any call of a selector named Lock with no arguments.
func oracleLock(f *ast.File, fset *token.FileSet, _ []byte) []int {
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) != 0 {
			return true
		}
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Lock" {
			out = append(out, offset(fset, c.Pos()))
		}
		return true
	})
	return out
}

// fmt.Println($$$): a call of fmt.Println with any arguments.
func oraclePrintln(f *ast.File, fset *token.FileSet, _ []byte) []int {
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Println" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "fmt" {
				out = append(out, offset(fset, c.Pos()))
			}
		}
		return true
	})
	return out
}

// $X = append($X, $$$): one plain assignment of append to its own first
// argument.
func oracleAppendSelf(f *ast.File, fset *token.FileSet, src []byte) []int {
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return true
		}
		c, ok := a.Rhs[0].(*ast.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "append" && sameExpr(fset, src, a.Lhs[0], c.Args[0]) {
			out = append(out, offset(fset, a.Pos()))
		}
		return true
	})
	return out
}

// for $K, $V := range $M { $$$ }: a range loop that declares a key and a
// value.
func oracleRangeKV(f *ast.File, fset *token.FileSet, _ []byte) []int {
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		r, ok := n.(*ast.RangeStmt)
		if ok && r.Key != nil && r.Value != nil && r.Tok == token.DEFINE {
			out = append(out, offset(fset, r.Pos()))
		}
		return true
	})
	return out
}

// A seqOracle says where a sequence matches: the byte ranges of the runs.
type seqOracle func(f *ast.File, fset *token.FileSet, src []byte) [][2]int

func starts(o seqOracle) oracle {
	return func(f *ast.File, fset *token.FileSet, src []byte) []int {
		var out []int
		for _, r := range o(f, fset, src) {
			out = append(out, r[0])
		}
		return out
	}
}

// stmtLists calls fn with every list of statements in f: the bodies of
// blocks and of case and select clauses.
func stmtLists(f *ast.File, fn func([]ast.Stmt)) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.BlockStmt:
			fn(s.List)
		case *ast.CaseClause:
			fn(s.Body)
		case *ast.CommClause:
			fn(s.Body)
		}
		return true
	})
}

// methodCall returns the receiver of s if s is the statement `X.name()`
// (deferred, with defer), or nil.
func methodCall(s ast.Stmt, name string, deferred bool) ast.Expr {
	var call *ast.CallExpr
	switch s := s.(type) {
	case *ast.ExprStmt:
		if !deferred {
			call, _ = s.X.(*ast.CallExpr)
		}
	case *ast.DeferStmt:
		if deferred {
			call = s.Call
		}
	}
	if call == nil || len(call.Args) != 0 {
		return nil
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return nil
	}
	return sel.X
}

// oracleLockDefer: `X.Lock()` and right after it `defer X.Unlock()`, X the
// same tokens; with mu, X is `A.mu`. Pairs cannot overlap.
func oracleLockDefer(mu bool) seqOracle {
	return func(f *ast.File, fset *token.FileSet, src []byte) [][2]int {
		var out [][2]int
		stmtLists(f, func(list []ast.Stmt) {
			for i := 0; i+1 < len(list); i++ {
				lock, unlock := methodCall(list[i], "Lock", false), methodCall(list[i+1], "Unlock", true)
				if lock == nil || unlock == nil || !sameExpr(fset, src, lock, unlock) {
					continue
				}
				if mu {
					if sel, ok := lock.(*ast.SelectorExpr); !ok || sel.Sel.Name != "mu" {
						continue
					}
				}
				out = append(out, [2]int{offset(fset, list[i].Pos()), offset(fset, list[i+1].End())})
				i++
			}
		})
		return out
	}
}

// oracleLockThenUnlock: `X.Lock()`, then any statements, then the first
// `X.Unlock()` after it in the same list; leftmost first, the next run
// looked for after the Unlock.
func oracleLockThenUnlock(f *ast.File, fset *token.FileSet, src []byte) [][2]int {
	var out [][2]int
	stmtLists(f, func(list []ast.Stmt) {
		for i := 0; i < len(list); i++ {
			lock := methodCall(list[i], "Lock", false)
			if lock == nil {
				continue
			}
			for j := i + 1; j < len(list); j++ {
				if u := methodCall(list[j], "Unlock", false); u != nil && sameExpr(fset, src, lock, u) {
					out = append(out, [2]int{offset(fset, list[i].Pos()), offset(fset, list[j].End())})
					i = j
					break
				}
			}
		}
	})
	return out
}

// TestOracleSequencesInServer compares, on net/http/server.go, the runs a
// Lock / defer Unlock sequence finds with those go/ast finds walking the
// statement lists: the same starts and the same ends.
func TestOracleSequencesInServer(t *testing.T) {
	dir := filepath.Join(wstest.GoSrc(t), "net", "http")
	src, err := os.ReadFile(filepath.Join(dir, "server.go"))
	wstest.RequirePeer(t, "Go's source tree: "+filepath.Join(dir, "server.go"), err == nil)
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, "server.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pattern string
		oracle  seqOracle
	}{
		{"$A.mu.Lock()\ndefer $A.mu.Unlock()", oracleLockDefer(true)},
		{"$A.Lock()\ndefer $A.Unlock()", oracleLockDefer(false)},
		{"$A.Lock()\n$$$\n$A.Unlock()", oracleLockThenUnlock},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			var want []string
			for _, r := range c.oracle(af, fset, src) {
				want = append(want, fmt.Sprintf("%d-%d", r[0], r[1]))
			}
			res, err := Search(context.Background(), root, Options{Pattern: c.pattern, Lang: "go", Paths: []string{"server.go"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Matches {
				got = append(got, fmt.Sprintf("%d-%d", m.StartByte, m.EndByte))
			}
			if len(want) == 0 {
				t.Fatal("go/ast found no such sequence in server.go")
			}
			if !slices.Equal(got, want) {
				t.Errorf("structsearch found %d runs %v\ngo/ast found     %d runs %v", len(got), got, len(want), want)
			}
			t.Logf("server.go: structsearch %d runs, go/ast %d", len(got), len(want))
		})
	}
}
