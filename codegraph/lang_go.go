package codegraph

import (
	"path"
	"strings"

	"cchub/lang"
)

// goModule is a go.mod of the workspace: the directory it is in and the
// module path it declares.
type goModule struct {
	dir, path string
}

// goPackageDir is the workspace directory of the Go package imported as
// importPath, or "" when it is not in the workspace. A module's packages
// are its directory joined with the rest of the path; the standard
// library's module ("std", GOROOT/src) imports by bare path. Without a
// go.mod (GOPATH, a bare tree) a directory named as the path is the
// package.
func (r *resolver) goPackageDir(importPath string) string {
	if dir, ok := r.goDirs[importPath]; ok {
		return dir
	}
	if r.goDirs == nil {
		r.goDirs = map[string]string{}
		r.goPkgs = map[string]bool{}
		for _, f := range r.files {
			if f.Language == lang.Go {
				r.goPkgs[path.Dir(f.Path)] = true
			}
		}
	}
	dir := ""
	best := -1
	for _, m := range r.goModules {
		rest, ok := "", false
		switch {
		case m.path == "std":
			first, _, _ := strings.Cut(importPath, "/")
			rest, ok = importPath, !strings.Contains(first, ".")
		case importPath == m.path:
			rest, ok = "", true
		case strings.HasPrefix(importPath, m.path+"/"):
			rest, ok = importPath[len(m.path)+1:], true
		}
		// The longest module path that holds the import wins (a nested
		// module owns its subtree).
		if ok && len(m.path) > best {
			if d := path.Join(m.dir, rest); r.goPkgs[d] {
				dir, best = d, len(m.path)
			} else {
				dir, best = "", len(m.path)
			}
		}
	}
	if best < 0 && r.goPkgs[importPath] {
		dir = importPath
	}
	r.goDirs[importPath] = dir
	return dir
}

// goTargets resolves a Go call. A bare name is its own package's (or a
// dot-imported package's): Go has no other way to reach a name bare, so a
// bare name found nowhere is a local variable or a builtin, left
// unresolved. pkg.F goes through the file's imports; recv.M within the
// method's own type is exact; any other value.M reaches the methods of
// that name, by name alone.
func (r *resolver) goTargets(f *File, in *Def, c Call) []target {
	dir := path.Dir(f.Path)
	funcIn := func(d *Def, dir string) bool {
		return d.Language == lang.Go && d.dir == dir && d.Type == "" && callable(d)
	}
	if c.Qualifier == "" {
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return funcIn(d, dir) }); len(ts) > 0 {
			return ts
		}
		for _, imp := range f.Imports {
			if imp.Alias == "." {
				if pd := r.goPackageDir(imp.Target); pd != "" {
					if ts := r.pick(c.Name, Imported, func(d *Def) bool { return funcIn(d, pd) }); len(ts) > 0 {
						return ts
					}
				}
			}
		}
		return nil
	}
	if in != nil && in.Type != "" && in.recv != "" && c.Qualifier == in.recv && r.binds(f, c.In, in.recv) <= 1 {
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return d.Type == in.Type && d.Language == lang.Go && d.dir == dir }); len(ts) > 0 {
			return ts
		}
	}
	if imp, ok := r.goImport(f, c.In, c.Qualifier); ok {
		pd := r.goPackageDir(imp.Target)
		if pd == "" {
			return nil // a package from outside the workspace
		}
		return r.pick(c.Name, Imported, func(d *Def) bool { return funcIn(d, pd) })
	}
	if imp, ok := r.goImport(f, noDef, c.Qualifier); ok {
		// A variable named like an imported package: the function is the
		// package's if it has one (packfile := packfile.New(…)), else a
		// method of the variable.
		if pd := r.goPackageDir(imp.Target); pd != "" {
			if ts := r.pick(c.Name, Imported, func(d *Def) bool { return funcIn(d, pd) }); len(ts) > 0 {
				return ts
			}
		}
	}
	if ts := r.typedTargets(f, c); len(ts) > 0 {
		return ts
	}
	// A method of a variable of a package from outside the workspace
	// (os.ErrInvalid.Error(), os.Stdout.Write): its value is made there,
	// of that package's types, not of the workspace's.
	if x, y, ok := strings.Cut(c.Qualifier, "."); ok && isIdent(x) && isIdent(y) {
		if imp, ok := r.goImport(f, c.In, x); ok && r.goPackageDir(imp.Target) == "" {
			return nil
		}
	}
	return r.pick(c.Name, NameOnly, func(d *Def) bool { return d.Language == lang.Go && d.Type != "" })
}

// noDef is a definition index no binding has: a lookup there sees no
// variable.
const noDef = -2

// binds is how many times name is bound in definition in of f (its
// parameters, receiver and variables).
func (r *resolver) binds(f *File, in int, name string) int {
	return len(r.typeIndex().localsOf(f)[localKey(in, name)])
}

// goImport is the import of Go file f that q names in definition in: by
// its alias, or, imported without one, by the name its package declares
// ("github.com/go-git/go-git/v5" is package git). A variable of the
// function named like a package shadows it.
func (r *resolver) goImport(f *File, in int, q string) (Import, bool) {
	if q == "" || r.binds(f, in, q) > 0 {
		return Import{}, false
	}
	for _, imp := range f.Imports {
		if imp.Alias == q {
			return imp, true
		}
	}
	for _, imp := range f.Imports {
		if imp.Alias == path.Base(imp.Target) {
			if dir := r.goPackageDir(imp.Target); dir != "" && r.typeIndex().pkgNames[dir] == q {
				return imp, true
			}
		}
	}
	return Import{}, false
}
