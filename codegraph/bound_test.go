package codegraph

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

const boundChildEnv = "CCHUB_CODEGRAPH_BOUND_CHILD"

// TestIndexBoundChild is run as a child by TestIndexTooBigPeakMemory: it
// indexes the workspace and prints what the index holds and said.
func TestIndexBoundChild(t *testing.T) {
	dir := os.Getenv(boundChildEnv)
	if dir == "" {
		t.Skip("run as a child by TestIndexTooBigPeakMemory")
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	x := NewIndex(root, cache)
	st, err := x.Update(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("files=%d defs=%d\n", st.Files, st.Defs)
	for _, f := range []string{"lines.py", "small.py"} {
		if g := x.File(f); g != nil {
			fmt.Printf("%s: %d defs\n", f, len(g.Defs))
		}
	}
	for _, n := range x.Notices() {
		fmt.Println("notice:", n)
	}
	// A second update finds nothing to read again, and says nothing again.
	if _, err := x.Update(context.Background()); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("notices after the second update: %d\n", len(x.Notices()))
}

// A 2 MiB file of one-character lines cost 1.2 GB to index. Now the index
// skips it, names it once, and indexes the rest; the child that indexed
// it stays near its own footprint.
func TestIndexTooBigPeakMemory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lines.py"), bytes.Repeat([]byte("x\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.py"), []byte("def f():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, kib := wstest.RunChild(t, "TestIndexBoundChild", boundChildEnv+"="+dir)
	for _, want := range []string{
		"files=2 defs=1",
		"lines.py: 0 defs",
		"small.py: 1 defs",
		"notice: code graph: lines.py is too large to parse: 1048577 lines",
		"the graph has none of its definitions or calls (grep path=lines.py finds names in it)",
		"notices after the second update: 0",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the child's output lacks %q:\n%s", want, text)
		}
	}
	// The test binary's own footprint (and its store) plus a few copies of
	// the 2 MiB file; parsing it alone took about 600 MiB.
	if limit := int64(96 << 10); kib > limit {
		t.Errorf("indexing beside a 2 MiB file of one-character lines took %d KiB at peak, want < %d KiB", kib, limit)
	}
	t.Logf("peak %d KiB", kib)
}
