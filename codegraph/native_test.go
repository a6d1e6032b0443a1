package codegraph

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/outline"
	"cchub/syntax"
	"cchub/workspace/wstest"
)

// TestNativeReadsAsTheQuery: a native reader (native.go) finds the calls
// and imports its query file does, in the same order, on sources written
// for the corners of each query and on a sample of Go's own source.
func TestNativeReadsAsTheQuery(t *testing.T) {
	for name := range natives {
		if !nativeCurrent(name) {
			t.Errorf("queries/%s.scm is not the file its native reader was written from: "+
				"bring the reader in native.go up to date (and its scm hash); until then the query is used", name)
		}
	}
	sources := map[string]string{
		"corners.go": `package p

import "fmt"
import f2 "fmt"
import . "strings"
import _ "embed"
import (
	"os"
	str "strconv"
	// a comment
	"path/filepath"
)

func F() {
	fmt.Println(f2.Sprint(ToUpper("a")))
	a.b.c().d(e.f())(g)
	x[0]()
	(h)()
	new(int); make([]int, 0)
	F[int](1)
	func() {}()
	s.t.
		u()
	os.Exit(str.Itoa(filepath.Base("x")))
	v. /* c */ w()
	broken(.x()
}

func (r *T) M() { r.M(); T{}.N() }
`,
		"syntax.go": "package p\nimport \"a\"\nfunc (\nimport b \"c\"\nfunc F() { a.B(; c.D() }\n",
		"corners.py": `import os
import os.path, sys as system, a.b.c as d, e
from . import x
from .m import (a as b, c)
from .. import y as z, w
from m.n import *
from __future__ import annotations
import

def f():
    import json
    from json import loads as l, dumps
    os.path.join(a, b)()
    f()()
    x[0]()
    a.b.c.d()
    getattr(o, "x")()
    (g)()
    print(l(s).get("k"))

class C(B):
    def m(self):
        super().m()
        self.n(
            1)
f(.x()
`,
		"syntax.py": "import a as\nfrom import b\nfrom c import (d as\ne.f(\n",
	}
	// A file too large for the arrays kept for reuse.
	var big strings.Builder
	big.WriteString("package p\n\nimport \"fmt\"\n\nfunc F() {\n")
	for i := range 20000 {
		fmt.Fprintf(&big, "\tfmt.Println(g%d(x.y(%d)))\n", i%7, i)
	}
	big.WriteString("}\n")
	sources["big.go"] = big.String()
	for rel, src := range sources {
		checkNative(t, rel, []byte(src), strings.HasPrefix(rel, "corners"))
	}
	if testing.Short() {
		return
	}
	n := 0
	filepath.WalkDir(wstest.GoSrc(t), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if n++; n%25 != 0 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err == nil {
			checkNative(t, p, src, false)
		}
		return nil
	})
}

// checkNative extracts src natively and with its query and says where
// the two differ; with full, both must have found calls and imports.
func checkNative(t *testing.T, rel string, src []byte, full bool) {
	t.Helper()
	ctx := context.Background()
	tree, err := syntax.ParseOnce(ctx, syntax.LanguageFor(rel), src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	if nl, _ := nativeFor(tree.Lang.Name, tree.RootNode()); nl == nil {
		t.Fatalf("%s: no native reader for %s", rel, tree.Lang.Name)
	}
	native, err := extract(ctx, rel, tree)
	if err != nil {
		t.Fatal(err)
	}
	query := &File{Path: rel, Language: tree.Lang.Name}
	query.addDefs(outline.OfTree(tree).Symbols, "")
	if query, err = extractQuery(ctx, query, tree); err != nil {
		t.Fatal(err)
	}
	// The type facts are the native readers' own (the queries have none).
	// So are references to functions as values.
	facts, calls := native.Binds, native.Calls
	native.Binds, native.Calls = nil, nil
	for _, c := range calls {
		if !c.Ref {
			native.Calls = append(native.Calls, c)
		}
	}
	defer func() { native.Binds, native.Calls = facts, calls }()
	if !bytes.Equal(encode(native), encode(query)) {
		t.Errorf("%s: native reader finds\n%+v\n%+v\nthe query\n%+v\n%+v", rel, native.Calls, native.Imports, query.Calls, query.Imports)
	} else if full && (len(query.Calls) == 0 || len(query.Imports) == 0) {
		t.Errorf("%s: nothing to compare: %d calls, %d imports", rel, len(query.Calls), len(query.Imports))
	}
}

// TestSetInByLine: the definition a call is in, painted by line, is the
// one enclosing finds for it.
func TestSetInByLine(t *testing.T) {
	f := &File{Defs: []Def{
		{Name: "a", Kind: "func", Start: 1, End: 20},
		{Name: "T", Kind: "class", Start: 3, End: 18},
		{Name: "b", Kind: "method", Start: 5, End: 9},
		{Name: "c", Kind: "func", Start: 5, End: 7},
		{Name: "d", Kind: "func", Start: 5, End: 6},
		{Name: "e", Kind: "test", Start: 12, End: 30},
		{Name: "g", Kind: "func", Start: 0, End: 0},
	}}
	for line := -1; line <= 32; line++ {
		for range 10 {
			f.Calls = append(f.Calls, Call{Name: "x", Line: line})
		}
	}
	f.setInByLine()
	for _, c := range f.Calls {
		if want := f.enclosing(c.Line, -1); c.In != want {
			t.Errorf("line %d: in %d, enclosing says %d", c.Line, c.In, want)
		}
	}
}
