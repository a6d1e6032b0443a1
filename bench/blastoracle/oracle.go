package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// decl is where a function is declared, as the code graph keys it: the
// file relative to the module's root (with /) and the line of its func
// keyword (of its name, for an interface method).
type decl struct {
	Path string
	Line int
}

func (d decl) String() string { return fmt.Sprintf("%s:%d", d.Path, d.Line) }

// site is one call the oracle resolved: where it is and the text of its
// call expression.
type site struct {
	Pos     string // path:LINE:COL of the call's parenthesis (or go/defer)
	Text    string // the call expression as written
	Shape   string // Text with the names abstracted (see shapeOf)
	Kind    string // what is called, as go/types sees it: method, interface method, func value, …
	Recv    string // for x.M(): how x got its value (parameter, x := &T{…}, …)
	Dynamic bool   // the oracle resolved it through an interface or a function value
}

// truth is what the precise analysis says about one module.
type truth struct {
	// callers holds, per callee declared in the module, its callers
	// declared in the module (a call in a func literal counted as its
	// enclosing named function's), each with one call site.
	callers map[decl]map[decl]site
	// sites are, per callee, the call sites that reach it.
	sites map[decl]map[string]bool
	// funcs are every function and method declared in the module that
	// the analysis saw, with its qualified name (Type.Name or Name).
	funcs map[decl]string
	// files are the module's files the build compiled (relative paths):
	// a definition in another file (another platform's, a build tag's)
	// is not judged.
	files map[string]bool
}

func newTruth() *truth {
	return &truth{callers: map[decl]map[decl]site{}, sites: map[decl]map[string]bool{}, funcs: map[decl]string{}, files: map[string]bool{}}
}

func (t *truth) add(callee, caller decl, s site) {
	if callee == caller {
		return // recursion: the code graph's radius leaves the start out
	}
	if t.sites[callee] == nil {
		t.sites[callee] = map[string]bool{}
	}
	t.sites[callee][s.Pos] = true
	m := t.callers[callee]
	if m == nil {
		m = map[decl]site{}
		t.callers[callee] = m
	}
	if _, ok := m[caller]; !ok {
		m[caller] = s
	}
}

// oracles are the two call graphs of one module: VTA (the precise one)
// and CHA (every method of a matching type, a looser bound).
type oracles struct {
	vta, cha *truth
	pkgs     int
	errs     []string // packages that did not type-check (left out)
}

// analyse loads every package of the module at dir, with its tests, into
// SSA and computes both call graphs.
func analyse(dir string) (*oracles, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps | packages.NeedCompiledGoFiles,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("load the packages of %s: %w (is the module's go.mod complete? try `go mod download` there)", dir, err)
	}
	o := &oracles{pkgs: len(pkgs)}
	var good []*packages.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			o.errs = append(o.errs, fmt.Sprintf("%s: %v", p.ID, p.Errors[0]))
			continue
		}
		good = append(good, p)
	}
	prog, _ := ssautil.Packages(good, ssa.InstantiateGenerics)
	prog.Build()

	in := &module{dir: dir, fset: prog.Fset, calls: map[token.Pos]callAt{}, origin: map[token.Pos]string{}}
	for _, p := range good {
		for _, f := range p.Syntax {
			in.indexCalls(f, p.TypesInfo)
			if r, ok := in.rel(f.Pos()); ok {
				in.files(r)
			}
		}
	}
	all := ssautil.AllFunctions(prog)
	chaG := cha.CallGraph(prog)
	vtaG := vta.CallGraph(all, chaG)
	o.vta = in.truthOf(vtaG, all)
	o.cha = in.truthOf(chaG, all)
	// Interface methods declared in the module: a call through the
	// interface names them, whatever it dispatches to.
	for _, t := range []*truth{o.vta, o.cha} {
		for f := range in.compiled {
			t.files[f] = true
		}
		in.addInvokes(t, all)
	}
	return o, nil
}

// module is what the oracle needs to read positions of one module.
type module struct {
	dir      string
	fset     *token.FileSet
	calls    map[token.Pos]callAt // by the call's Lparen
	origin   map[token.Pos]string // how a variable declared at a position got its value
	compiled map[string]bool
}

type callAt struct {
	call *ast.CallExpr
	info *types.Info
	in   string // "go " or "defer " when the call is a go or defer statement's
}

func (m *module) files(rel string) {
	if m.compiled == nil {
		m.compiled = map[string]bool{}
	}
	m.compiled[rel] = true
}

func (m *module) indexCalls(f *ast.File, info *types.Info) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil {
				m.origins(n.Recv, "receiver")
			}
			m.origins(n.Type.Params, "parameter")
		case *ast.FuncLit:
			m.origins(n.Type.Params, "parameter")
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for i, l := range n.Lhs {
					rhs := n.Rhs[0]
					if len(n.Rhs) == len(n.Lhs) {
						rhs = n.Rhs[i]
					}
					if id, ok := l.(*ast.Ident); ok {
						m.origin[id.Pos()] = "x := " + valueShape(rhs, info)
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				switch {
				case n.Type != nil:
					m.origin[id.Pos()] = "var x T"
				case i < len(n.Values):
					m.origin[id.Pos()] = "var x = " + valueShape(n.Values[i], info)
				case len(n.Values) > 0:
					m.origin[id.Pos()] = "var x = " + valueShape(n.Values[0], info)
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
					m.origin[id.Pos()] = "range variable"
				}
			}
		case *ast.CallExpr:
			if _, ok := m.calls[n.Lparen]; !ok {
				m.calls[n.Lparen] = callAt{call: n, info: info}
			}
		case *ast.GoStmt:
			m.calls[n.Call.Lparen] = callAt{call: n.Call, info: info, in: "go "}
		case *ast.DeferStmt:
			m.calls[n.Call.Lparen] = callAt{call: n.Call, info: info, in: "defer "}
		}
		return true
	})
}

func (m *module) origins(fl *ast.FieldList, what string) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, id := range f.Names {
			m.origin[id.Pos()] = what
		}
	}
}

// valueShape abstracts the value a variable is declared with.
func valueShape(e ast.Expr, info *types.Info) string {
	switch v := e.(type) {
	case *ast.CompositeLit:
		return "T{…}"
	case *ast.UnaryExpr:
		if _, ok := v.X.(*ast.CompositeLit); ok && v.Op == token.AND {
			return "&T{…}"
		}
	case *ast.CallExpr:
		if id, ok := v.Fun.(*ast.Ident); ok {
			if _, ok := info.Uses[id].(*types.Builtin); ok {
				return id.Name + "(…)"
			}
		}
		return shapeOf(v.Fun, info) + "(…)"
	case *ast.TypeAssertExpr:
		return "x.(T)"
	}
	return shapeOf(e, info)
}

// recvOrigin says how the variable a method is called on got its value
// (c.M(): where c was declared), "" when it is not a variable.
func (m *module) recvOrigin(fun ast.Expr, info *types.Info) string {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x := sel.X
	for {
		if p, ok := x.(*ast.ParenExpr); ok {
			x = p.X
			continue
		}
		break
	}
	id, ok := x.(*ast.Ident)
	if !ok {
		return ""
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok {
		return ""
	}
	if v.Parent() == v.Pkg().Scope() {
		return "package var"
	}
	if o, ok := m.origin[v.Pos()]; ok {
		return o
	}
	return "variable"
}

// rel is pos's file relative to the module's root, if it is in it.
func (m *module) rel(pos token.Pos) (string, bool) {
	if !pos.IsValid() {
		return "", false
	}
	name := m.fset.Position(pos).Filename
	r, err := filepath.Rel(m.dir, name)
	if err != nil || strings.HasPrefix(r, "..") || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// declOf is where fn is declared, for a function or method declared in
// the module: a func literal is its enclosing function's, an instance of
// a generic function its origin's. Synthetic functions (wrappers,
// package initialisers) have none.
func (m *module) declOf(fn *ssa.Function) (decl, bool) {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok {
		return decl{}, false
	}
	r, ok := m.rel(fd.Pos())
	if !ok {
		return decl{}, false
	}
	return decl{r, m.fset.Position(fd.Pos()).Line}, true
}

// qual is fn's name as the code graph writes it: Type.Name or Name.
func qual(fn *ssa.Function) string {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if o := fn.Origin(); o != nil {
		fn = o
	}
	name := fn.Name()
	if i := strings.IndexByte(name, '#'); i >= 0 {
		name = name[:i] // init#1
	}
	if recv := fn.Signature.Recv(); recv != nil {
		t := recv.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + name
		}
	}
	return name
}

// siteOf describes the call instruction c.
func (m *module) siteOf(c ssa.CallInstruction) site {
	common := c.Common()
	pos := common.Pos()
	if !pos.IsValid() {
		pos = c.Pos()
	}
	s := site{Dynamic: common.IsInvoke() || common.StaticCallee() == nil}
	if r, ok := m.rel(pos); ok {
		p := m.fset.Position(pos)
		s.Pos = fmt.Sprintf("%s:%d:%d", r, p.Line, p.Column)
	}
	if at, ok := m.calls[common.Pos()]; ok {
		s.Text = at.in + types.ExprString(at.call.Fun) + "(" + argsText(at.call) + ")"
		s.Shape = shapeOf(at.call.Fun, at.info) + "()"
		s.Kind = kindOf(at.call.Fun, at.info)
		s.Recv = m.recvOrigin(at.call.Fun, at.info)
	} else {
		s.Text, s.Shape, s.Kind = "(implicit: "+c.String()+")", "(implicit call)", "implicit"
	}
	return s
}

func argsText(c *ast.CallExpr) string {
	if len(c.Args) == 0 {
		return ""
	}
	return "…"
}

// shapeOf abstracts a called expression: a package name becomes pkg,
// other identifiers x, a selected field f, the called name M (F for a
// function), calls keep their parentheses, indexes become [i], so that
// calls built alike count together (c.Root().ExecuteC() → x.M().M()).
func shapeOf(e ast.Expr, info *types.Info) string {
	var walk func(e ast.Expr, last bool) string
	walk = func(e ast.Expr, last bool) string {
		switch e := e.(type) {
		case *ast.Ident:
			if _, ok := info.Uses[e].(*types.PkgName); ok {
				return "pkg"
			}
			if _, ok := info.Uses[e].(*types.Func); ok && last {
				return "F"
			}
			return "x"
		case *ast.SelectorExpr:
			name := "f"
			if last {
				name = "M"
				if _, ok := info.Uses[e.Sel].(*types.Func); ok && info.Selections[e] == nil {
					name = "F"
				}
			}
			return walk(e.X, false) + "." + name
		case *ast.CallExpr:
			return walk(e.Fun, true) + "()"
		case *ast.IndexExpr:
			if last {
				return walk(e.X, true) + "[T]"
			}
			return walk(e.X, false) + "[i]"
		case *ast.IndexListExpr:
			return walk(e.X, last) + "[T…]"
		case *ast.ParenExpr:
			return "(" + walk(e.X, last) + ")"
		case *ast.StarExpr:
			return "*" + walk(e.X, false)
		case *ast.TypeAssertExpr:
			return walk(e.X, false) + ".(T)"
		case *ast.FuncLit:
			return "func(){…}"
		case *ast.UnaryExpr:
			return e.Op.String() + walk(e.X, false)
		case *ast.CompositeLit:
			return "T{…}"
		}
		return fmt.Sprintf("<%T>", e)
	}
	return walk(e, true)
}

// kindOf says what a called expression is, as go/types sees it.
func kindOf(fun ast.Expr, info *types.Info) string {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
			continue
		case *ast.IndexExpr:
			fun = e.X
			continue
		case *ast.IndexListExpr:
			fun = e.X
			continue
		}
		break
	}
	switch e := fun.(type) {
	case *ast.Ident:
		switch info.Uses[e].(type) {
		case *types.Func:
			return "function"
		case *types.Var:
			return "func value"
		}
	case *ast.SelectorExpr:
		sel := info.Selections[e]
		if sel == nil {
			switch info.Uses[e.Sel].(type) {
			case *types.Func:
				return "package function"
			case *types.Var:
				return "package func var"
			}
			break
		}
		switch sel.Kind() {
		case types.FieldVal:
			return "func field"
		case types.MethodExpr:
			return "method expression"
		}
		if types.IsInterface(sel.Recv()) {
			return "interface method"
		}
		if len(sel.Index()) > 1 {
			return "promoted method"
		}
		return "method"
	case *ast.CallExpr:
		return "returned func"
	case *ast.FuncLit:
		return "func literal"
	}
	return "other"
}

// truthOf turns a call graph into callers per callee, both declared in
// the module. An edge into a synthetic function (a method wrapper, a
// bound method, a thunk) is followed through it to what it calls.
func (m *module) truthOf(g *callgraph.Graph, all map[*ssa.Function]bool) *truth {
	t := newTruth()
	for fn := range all {
		if d, ok := m.declOf(fn); ok && fn.Parent() == nil {
			if _, seen := t.funcs[d]; !seen {
				t.funcs[d] = qual(fn)
			}
		}
	}
	var targets func(n *callgraph.Node, seen map[*callgraph.Node]bool, out func(decl))
	targets = func(n *callgraph.Node, seen map[*callgraph.Node]bool, out func(decl)) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.Func.Parent() != nil {
			// A func literal: calling it calls no named function (the
			// one it is written in is not called by it).
			return
		}
		if d, ok := m.declOf(n.Func); ok {
			out(d)
			return
		}
		if n.Func.Synthetic == "" {
			return
		}
		for _, e := range n.Out {
			targets(e.Callee, seen, out)
		}
	}
	for fn, n := range g.Nodes {
		if fn == nil {
			continue
		}
		caller, ok := m.declOf(fn)
		if !ok {
			continue
		}
		for _, e := range n.Out {
			if e.Site == nil {
				continue
			}
			s := m.siteOf(e.Site)
			targets(e.Callee, map[*callgraph.Node]bool{}, func(callee decl) {
				t.add(callee, caller, s)
			})
		}
	}
	return t
}

// addInvokes adds, for every call through an interface declared in the
// module, an edge to the interface's method.
func (m *module) addInvokes(t *truth, all map[*ssa.Function]bool) {
	for fn := range all {
		caller, ok := m.declOf(fn)
		if !ok {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				c, ok := ins.(ssa.CallInstruction)
				if !ok || !c.Common().IsInvoke() {
					continue
				}
				meth := c.Common().Method
				r, ok := m.rel(meth.Pos())
				if !ok {
					continue
				}
				d := decl{r, m.fset.Position(meth.Pos()).Line}
				if _, known := t.funcs[d]; !known {
					name := meth.Name()
					if recv := c.Common().Value.Type(); recv != nil {
						if n, ok := types.Unalias(recv).(*types.Named); ok {
							name = n.Obj().Name() + "." + name
						}
					}
					t.funcs[d] = name
				}
				t.add(d, caller, m.siteOf(c))
			}
		}
	}
}
