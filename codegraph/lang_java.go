package codegraph

import (
	"path"
	"strings"

	"cchub/lang"
)

// Java: a package is a directory (a.b is …/a/b/), a class is found
// through the file's imports or its own package, constructions reach the
// class's constructors, and a bare call is first a method of the class
// it is made in.

// javaImport reads an import declaration: import a.b.C (C is a.b.C),
// import a.b.* (every class of a.b), import static a.b.C.m (m is a.b.C.m),
// import static a.b.C.* (every static member of a.b.C).
func javaImport(decl string) (Import, bool) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(decl), ";"))
	t = strings.TrimSpace(strings.TrimPrefix(t, "import"))
	t = strings.TrimSpace(strings.TrimPrefix(t, "static "))
	t = strings.Join(strings.Fields(t), "")
	if t == "" {
		return Import{}, false
	}
	if rest, ok := strings.CutSuffix(t, ".*"); ok {
		return Import{Alias: "*", Target: rest}, true
	}
	return Import{Alias: lastSegment(t, "."), Target: t}, true
}

// javaIsTest says whether d is a test: annotated @Test (JUnit 4 and 5,
// TestNG) or as a parameterized, repeated or factory test, or a JUnit 3
// test* method of a class named *Test, *Tests or *TestCase.
func javaIsTest(d Def, annotations []string) bool {
	for _, a := range annotations {
		a = strings.TrimPrefix(a, "@")
		if i := strings.IndexByte(a, '('); i >= 0 {
			a = a[:i]
		}
		switch lastSegment(strings.TrimSpace(a), ".") {
		case "Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate":
			return true
		}
	}
	return d.Kind == "method" && strings.HasPrefix(d.Name, "test") &&
		(strings.HasSuffix(d.Type, "Test") || strings.HasSuffix(d.Type, "Tests") || strings.HasSuffix(d.Type, "TestCase"))
}

// javaInPackage says whether the file p is in the package pkg (a.b).
func javaInPackage(p, pkg string) bool {
	dir, want := path.Dir(p), strings.ReplaceAll(pkg, ".", "/")
	return dir == want || strings.HasSuffix(dir, "/"+want)
}

// javaPackageDir is the package of the file p as a path: its directory
// under the source root (src/, src/main/java/, src/test/java/), so that a
// test and the class it tests are in one package.
func javaPackageDir(p string) string {
	segs := strings.Split(path.Dir(p), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i] != "src" {
			continue
		}
		rest := segs[i+1:]
		switch {
		case len(rest) >= 2 && (rest[1] == lang.Java || rest[1] == "kotlin"):
			rest = rest[2:]
		case len(rest) >= 1 && rest[0] == lang.Java:
			rest = rest[1:]
		}
		return strings.Join(rest, "/")
	}
	return path.Dir(p)
}

// javaSamePackage says whether the files a and b are in one package.
func javaSamePackage(a, b string) bool {
	return path.Dir(a) == path.Dir(b) || javaPackageDir(a) == javaPackageDir(b)
}

func javaClassKind(d *Def) bool {
	switch d.Kind {
	case "class", "interface", "enum", "record":
		return d.Language == lang.Java
	}
	return false
}

// javaClasses returns the classes named name that f can mean, with how
// sure that is: of f itself or its package (exact), imported by name or by
// its package's * (import), or only of that name (name-only). None when
// an import names a class the workspace does not have (java.util.List).
func (r *resolver) javaClasses(f *File, name string) []target {
	if ts := r.pick(name, Exact, func(d *Def) bool { return javaClassKind(d) && javaSamePackage(d.Path, f.Path) }); len(ts) > 0 {
		return ts
	}
	imported := false
	for _, imp := range f.Imports {
		var pkg string
		switch {
		case imp.Alias == name:
			pkg, imported = strings.TrimSuffix(imp.Target, "."+name), true
		case imp.Alias == "*":
			pkg = imp.Target
		default:
			continue
		}
		if ts := r.pick(name, Imported, func(d *Def) bool { return javaClassKind(d) && javaInPackage(d.Path, pkg) }); len(ts) > 0 {
			return ts
		}
	}
	if imported {
		return nil
	}
	return r.pick(name, NameOnly, javaClassKind)
}

// javaMethods returns the methods named name of the classes cs, with
// their confidence.
func (r *resolver) javaMethods(cs []target, name string) []target {
	var out []target
	for _, cl := range cs {
		d := r.defs[cl.key]
		out = append(out, r.pick(name, cl.confidence, func(m *Def) bool { return m.Path == d.Path && m.Type == d.Name && m.Kind == "method" })...)
	}
	return out
}

// javaTargets resolves a Java call: a bare m() among the methods of its
// class (and the classes around it), then as a construction (new Foo()),
// then through a static import, then by name (an inherited method);
// this.m() within the class; C.m() on a class its imports or package
// name; obj.m() by name among methods.
func (r *resolver) javaTargets(f *File, in *Def, c Call) []target {
	method := func(d *Def) bool { return d.Language == lang.Java && d.Kind == "method" }
	if c.Qualifier == "" {
		if in != nil && in.Type != "" {
			if ts := r.pick(c.Name, Exact, func(d *Def) bool { return method(d) && d.Path == f.Path && d.Type == in.Type }); len(ts) > 0 {
				return ts
			}
		}
		if cs := r.javaClasses(f, c.Name); len(cs) > 0 {
			// new Foo(): its constructors, or the class when it declares none.
			if ts := r.javaMethods(cs, c.Name); len(ts) > 0 {
				return ts
			}
			return cs
		}
		for _, imp := range f.Imports {
			class, pkg := "", ""
			switch {
			case imp.Alias == c.Name: // import static a.b.C.m
				cls := strings.TrimSuffix(imp.Target, "."+c.Name)
				class, pkg = lastSegment(cls, "."), strings.TrimSuffix(cls, "."+lastSegment(cls, "."))
			case imp.Alias == "*": // import static a.b.C.*
				class, pkg = lastSegment(imp.Target, "."), strings.TrimSuffix(imp.Target, "."+lastSegment(imp.Target, "."))
			default:
				continue
			}
			if ts := r.pick(c.Name, Imported, func(d *Def) bool { return method(d) && d.Type == class && javaInPackage(d.Path, pkg) }); len(ts) > 0 {
				return ts
			}
		}
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return method(d) && d.Path == f.Path }); len(ts) > 0 {
			return ts // a method of an enclosing class
		}
		return r.pick(c.Name, NameOnly, method)
	}
	if c.Qualifier == "this" && in != nil && in.Type != "" {
		if ts := r.pick(c.Name, Exact, func(d *Def) bool { return method(d) && d.Path == f.Path && d.Type == in.Type }); len(ts) > 0 {
			return ts
		}
	}
	// Strings.join(), a.b.Strings.join(): a static method of a class.
	if q := lastSegment(c.Qualifier, "."); javaClassName(q) {
		cs := r.javaClasses(f, q)
		if len(cs) == 0 {
			return nil // a class of the JDK or a library: Math.max(), List.of()
		}
		if ts := r.javaMethods(cs, c.Name); len(ts) > 0 {
			return ts
		}
	}
	return r.pick(c.Name, NameOnly, method)
}

// javaClassName says whether q is written as a class is (Strings, not
// strings or MAX).
func javaClassName(q string) bool {
	return q != "" && q[0] >= 'A' && q[0] <= 'Z' && strings.ToUpper(q) != q
}
