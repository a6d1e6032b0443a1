package syntax

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// The layouts cnode.go reads must hold here: when they do not, codegraph
// quietly reads every file with its queries (slower, same answers) and
// outlines panic, so a change of go-tree-sitter must fail this first.
func TestNodeLayoutsHold(t *testing.T) {
	if !sitterLayoutOK() {
		t.Fatal("github.com/smacker/go-tree-sitter's Node is not a TSNode and a tree pointer")
	}
	if !flatLayoutOK() {
		t.Fatal("FlatNode is not laid out as sx_flat")
	}
}

// cnodeSources are files whose trees have what a reading can get wrong:
// hidden nodes, fields, ERROR and MISSING nodes, comments after the code.
var cnodeSources = map[string]string{
	"a.go": `package p

import (
	"fmt"
	str "strings"
)

// T is a type.
type T struct{ a, b int }

func (t *T) M(x int) (int, error) {
	fmt.Println(str.ToUpper("x"), t.a)
	return x, nil
}

func broken( {
`,
	"a.py": `import os, sys as system
from . import x

class C(B):
    def m(self, a=1):
        """doc"""
        return os.path.join(a)
        # a trailing comment

def f(:
    pass
`,
	"a.rs": "use std::fmt;\n/// doc\nfn f() -> i32 { let x = 1 // comment\n}\n",
	"a.ts": "export class A<T> extends B implements C { m(): void { this.n() } }\nlet x = ;\n",
}

func parseForTest(t *testing.T, rel, src string) *Tree {
	t.Helper()
	tree, err := ParseOnce(context.Background(), LanguageFor(rel), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Release)
	return tree
}

// flattenByCursor is what Flatten must return, read through
// go-tree-sitter's cursor: every field read.
func flattenByCursor(root *sitter.Node) []FlatNode {
	var out []FlatNode
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	var walk func(parent uint32)
	walk = func(parent uint32) {
		n := c.CurrentNode()
		at := uint32(len(out))
		field := uint16(0)
		if parent != NoParent {
			if name := c.CurrentFieldName(); name != "" {
				field = FieldID(root, name)
			}
		}
		out = append(out, FlatNode{
			Start: n.StartByte(), End: n.EndByte(),
			Row: n.StartPoint().Row, Col: n.StartPoint().Column,
			Parent: parent, Symbol: uint16(n.Symbol()), Field: field, Named: n.IsNamed(),
		})
		if c.GoToFirstChild() {
			for {
				walk(at)
				if !c.GoToNextSibling() {
					break
				}
			}
			c.GoToParent()
		}
		out[at].Next = uint32(len(out))
	}
	walk(NoParent)
	return out
}

func TestFlattenReadsAsTheCursor(t *testing.T) {
	for rel, src := range cnodeSources {
		tree := parseForTest(t, rel, src)
		root := tree.RootNode()
		if !CanRead(root) {
			t.Fatalf("%s: root cannot be read", rel)
		}
		want := flattenByCursor(root)
		all := make([]bool, 1<<16) // every field read
		for i := range all {
			all[i] = true
		}
		got, ok := Flatten(root, all)
		if !ok {
			t.Fatalf("%s: not flattened", rel)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d nodes, the cursor visits %d", rel, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: node %d is %+v, the cursor reads %+v", rel, i, got[i], want[i])
			}
		}
		ReleaseFlat(got)

		// Fields read in no parent: none but the root's are known.
		got, ok = Flatten(root, nil)
		if !ok {
			t.Fatalf("%s: not flattened without fields", rel)
		}
		for i, n := range got {
			if wantField := uint16(NoField); i == 0 && n.Field != 0 || i > 0 && n.Field != wantField {
				t.Fatalf("%s: node %d has field %d with no field asked for", rel, i, n.Field)
			}
		}
		ReleaseFlat(got)
	}
}

// A tree too large for the arrays kept for reuse is flattened into one
// allocated in C, and freed.
func TestFlattenLargeTree(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\nfunc F() {\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "\tg(x.y(%d))\n", i)
	}
	b.WriteString("}\n")
	tree := parseForTest(t, "big.go", b.String())
	got, ok := Flatten(tree.RootNode(), nil)
	if !ok {
		t.Fatal("not flattened")
	}
	defer ReleaseFlat(got)
	if cap(got) <= maxKeptFlat {
		t.Fatalf("%d nodes in an array of %d: not the large case", len(got), cap(got))
	}
	if got[0].Next != uint32(len(got)) || got[len(got)-1].End == 0 {
		t.Fatalf("root spans %d of %d nodes", got[0].Next, len(got))
	}
}

// Every Node reads as go-tree-sitter reads the same node.
func TestNodesReadAsGoTreeSitter(t *testing.T) {
	for rel, src := range cnodeSources {
		tree := parseForTest(t, rel, src)
		var nodes Nodes
		checkNode(t, rel, nodes.Root(tree.RootNode()), tree.RootNode(), "")
		nodes.Close()
	}
}

func checkNode(t *testing.T, rel string, n *Node, s *sitter.Node, field string) {
	t.Helper()
	at := fmt.Sprintf("%s: %s at %d", rel, s.Type(), s.StartByte())
	if n.Type() != s.Type() || n.StartByte() != s.StartByte() || n.EndByte() != s.EndByte() ||
		n.StartPoint() != s.StartPoint() || n.EndPoint() != s.EndPoint() ||
		n.IsNamed() != s.IsNamed() || n.IsMissing() != s.IsMissing() || n.HasError() != s.HasError() ||
		n.IsError() != s.IsError() || n.ChildCount() != s.ChildCount() || n.FieldName() != field {
		t.Fatalf("%s: read as %q %d-%d %v-%v named=%v missing=%v error=%v/%v children=%d field=%q", at,
			n.Type(), n.StartByte(), n.EndByte(), n.StartPoint(), n.EndPoint(), n.IsNamed(), n.IsMissing(),
			n.HasError(), n.IsError(), n.ChildCount(), n.FieldName())
	}
	for i := range int(s.NamedChildCount()) + 1 {
		nc, sc := n.NamedChild(i), s.NamedChild(i)
		if (nc == nil) != (sc == nil) || nc != nil && (nc.Type() != sc.Type() || nc.StartByte() != sc.StartByte()) {
			t.Fatalf("%s: named child %d differs", at, i)
		}
	}
	for _, name := range []string{"name", "body", "parameters", "path", "nonesuch"} {
		nc, sc := n.ChildByFieldName(name), s.ChildByFieldName(name)
		if (nc == nil) != (sc == nil) || nc != nil && (nc.Type() != sc.Type() || nc.StartByte() != sc.StartByte()) {
			t.Fatalf("%s: child in field %s differs", at, name)
		}
	}
	kids := n.Children()
	c := sitter.NewTreeCursor(s)
	defer c.Close()
	i := 0
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if i >= len(kids) {
			t.Fatalf("%s: %d children read, the cursor visits more", at, len(kids))
		}
		checkNode(t, rel, kids[i], c.CurrentNode(), c.CurrentFieldName())
		i++
	}
	if i != len(kids) {
		t.Fatalf("%s: %d children read, the cursor visits %d", at, len(kids), i)
	}
}

// LastCodeLine stops before the comments that end a block.
func TestLastCodeLine(t *testing.T) {
	tree := parseForTest(t, "a.py", cnodeSources["a.py"])
	var nodes Nodes
	defer nodes.Close()
	class := nodes.Root(tree.RootNode()).NamedChild(2)
	if class.Type() != "class_definition" {
		t.Fatalf("third statement is %s", class.Type())
	}
	if got := class.LastCodeLine(); got != 7 {
		t.Fatalf("class ends on line %d, want 7 (the comment after is not its)", got)
	}
	if got := int(class.EndPoint().Row) + 1; got != 8 {
		t.Fatalf("the parser ends the class on line %d, want 8: the test shows nothing", got)
	}
}

// Nodes read a sample of Go's own source as go-tree-sitter does.
func TestNodesOnGoSource(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	matches, _ := filepath.Glob(filepath.Join(gorootSrc(t), "strings", "*.go"))
	if len(matches) == 0 {
		t.Skip("no Go source tree")
	}
	for _, p := range matches[:min(len(matches), 8)] {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		tree := parseForTest(t, p, string(src))
		var nodes Nodes
		checkNode(t, p, nodes.Root(tree.RootNode()), tree.RootNode(), "")
		nodes.Close()
		want := flattenByCursor(tree.RootNode())
		all := make([]bool, 1<<16)
		for i := range all {
			all[i] = true
		}
		got, ok := Flatten(tree.RootNode(), all)
		if !ok || len(got) != len(want) {
			t.Fatalf("%s: flattened %v, %d nodes of %d", p, ok, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: node %d is %+v, the cursor reads %+v", p, i, got[i], want[i])
			}
		}
		ReleaseFlat(got)
	}
}
