package syntax

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// gorootSrc is $(go env GOROOT)/src (syntax's tests stand below the test
// kit), skipping the test without the go command.
func gorootSrc(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("go env GOROOT:", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// gorootFile returns the path of a file in GOROOT's source, skipping the test
// when it is missing.
func gorootFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(gorootSrc(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", rel, err)
	}
	return p
}

// Files this large and dense are ordinary: generated Go tables and code.
// Each must be parsed.
func TestTooBigParsesRealLargeFiles(t *testing.T) {
	for _, rel := range []string{
		"cmd/compile/internal/ssa/opGen.go",
		"cmd/compile/internal/ssa/rewriteAMD64.go",
		"unicode/tables.go",
		"time/tzdata/zzipdata.go",
	} {
		src, err := os.ReadFile(gorootFile(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := TooBig(src); err != nil {
			t.Errorf("%s is refused: %v", rel, err)
		}
		s := Measure(src)
		t.Logf("%s: %d bytes, %d lines, %d tokens, estimate %d MiB", rel, s.Bytes, s.Lines, s.Tokens, s.TreeBytes()>>20)
	}
}

func TestTooBigRefusesDenseFiles(t *testing.T) {
	lang := LanguageByName("python")
	for name, src := range map[string][]byte{
		"one-character lines": bytes.Repeat([]byte("x\n"), 1<<20),
		// Under MaxTreeBytes, but 336 times its size.
		"1.4 MB of one-character lines": bytes.Repeat([]byte("x\n"), 700_000),
		"one line of tokens":            bytes.Repeat([]byte("x;"), 2<<20),
		"past the byte bound":           bytes.Repeat([]byte("# a comment line that is long enough\n"), MaxParseBytes/36),
	} {
		err := TooBig(src)
		var tb *TooBigError
		if !errors.As(err, &tb) || !errors.Is(err, ErrTooBig) {
			t.Errorf("%s: TooBig = %v, want a *TooBigError", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "too large to parse") {
			t.Errorf("%s: %q does not say too large to parse", name, err)
		}
		// Every way to parse refuses it, before any tree is built.
		c := NewParseCache(0)
		if _, err := c.Parse(context.Background(), "a.py", lang, src); !errors.Is(err, ErrTooBig) {
			t.Errorf("%s: ParseCache.Parse = %v, want ErrTooBig", name, err)
		}
		if _, err := ParseOnce(context.Background(), lang, src); !errors.Is(err, ErrTooBig) {
			t.Errorf("%s: ParseOnce = %v, want ErrTooBig", name, err)
		}
		c.Close()
	}
}

// childEnv makes the test binary, re-run as a child, parse one file and
// exit; the parent reads the child's peak memory.
const childEnv = "CCHUB_SYNTAX_PARSE_CHILD"

func TestParseChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("run as a child by TestParsePeakMemory")
	}
	path, langName, _ := strings.Cut(spec, "|")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ParseOnce(context.Background(), LanguageByName(langName), src)
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Println("parsed:", tree.RootNode().ChildCount() > 0)
	tree.Release()
}

// The hostile probe: a file of one-character lines cost about 300 times
// its size to parse. Now it is refused, and a real file of the same size
// parses within a multiple of its size. Each figure is the child's peak
// over the peak of a child that parsed a one-line file (the test binary,
// its grammars and, under -race, the race runtime).
func TestParsePeakMemory(t *testing.T) {
	dir := t.TempDir()
	child := func(name, lang string, src []byte) (string, int64) {
		t.Helper()
		p := filepath.Join(dir, name)
		if src != nil {
			if err := os.WriteFile(p, src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return wstest.RunChild(t, "TestParseChild", childEnv+"="+p+"|"+lang)
	}
	out, base := child("one.py", "python", []byte("x = 1\n"))
	if !strings.Contains(out, "parsed: true") {
		t.Fatalf("a one-line file was not parsed:\n%s", out)
	}
	t.Logf("a one-line file: %d KiB peak", base)

	out, kib := child("lines.py", "python", bytes.Repeat([]byte("x\n"), 1<<20))
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "too large to parse") {
		t.Fatalf("the 2 MiB file of one-character lines was not refused:\n%s", out)
	}
	// The file read and measured (a few copies under -race): far below
	// the ~600 MiB its tree took.
	if over := kib - base; over > 16<<10 {
		t.Errorf("refusing a 2 MiB file took %d KiB over a one-line file's peak, want < %d KiB", over, 16<<10)
	}
	// Just under the absolute bound, the ratio refuses it: no hostile
	// file's tree passes DenseFloor.
	out, kib = child("under.py", "python", bytes.Repeat([]byte("x\n"), 700_000))
	if !strings.Contains(out, "refused:") || !strings.Contains(out, "too dense") {
		t.Fatalf("1.4 MB of one-character lines was not refused:\n%s", out)
	}
	if over := kib - base; over > 16<<10 {
		t.Errorf("refusing a 1.4 MB file took %d KiB over a one-line file's peak, want < %d KiB", over, 16<<10)
	}
	// The densest file that parses: a tree of at most DenseFloor.
	out, kib = child("dense.py", "python", bytes.Repeat([]byte("x\n"), 95_000))
	if !strings.Contains(out, "parsed: true") {
		t.Fatalf("190 KB of one-character lines was refused:\n%s", out)
	}
	if over := kib - base; over > (DenseFloor+16<<20)>>10 {
		t.Errorf("parsing 190 KB of one-character lines took %d KiB over a one-line file's peak, want < %d KiB", over, (DenseFloor+16<<20)>>10)
	}
	t.Logf("190 KB of one-character lines: %d KiB peak", kib)

	real := gorootFile(t, "cmd/compile/internal/ssa/rewriteAMD64.go")
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	out, kib = wstest.RunChild(t, "TestParseChild", childEnv+"="+real+"|go")
	if !strings.Contains(out, "parsed: true") {
		t.Fatalf("rewriteAMD64.go was not parsed:\n%s", out)
	}
	// Measured: ~37 times its size for the tree; 64 times leaves room
	// without admitting the ~300 times of the probe.
	if over := kib - base; over > 64*fi.Size()>>10 {
		t.Errorf("parsing rewriteAMD64.go (%d KiB) took %d KiB over a one-line file's peak, want < %d KiB", fi.Size()>>10, over, 64*fi.Size()>>10)
	}
	t.Logf("rewriteAMD64.go: %d KiB source, %d KiB peak", fi.Size()>>10, kib)
}

// A source denser than real code counts for its estimated tree against the
// cache's bound: a cache of 1 MiB keeps an ordinary 600 KB file, and a
// 180 KB file of one-character lines (a tree of ~58 MiB) counts for more
// than the rest of the bound.
func TestParseCacheChargesDenseSources(t *testing.T) {
	ctx := context.Background()
	c := NewParseCache(1 << 20)
	defer c.Close()
	var ordinary bytes.Buffer
	ordinary.WriteString("package p\n\n")
	for i := 0; ordinary.Len() < 600<<10; i++ {
		fmt.Fprintf(&ordinary, "// F%d returns its argument plus %d.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i)
	}
	tree, err := c.Parse(ctx, "ordinary.go", LanguageByName("go"), ordinary.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tree.Release()
	if st := c.Stats(); st.Trees != 1 || st.Bytes != ordinary.Len() {
		t.Fatalf("after an ordinary file of %d bytes: %+v, want it kept and counted by its size", ordinary.Len(), st)
	}
	dense := bytes.Repeat([]byte("x\n"), 90_000) // a tree of ~58 MiB: under DenseFloor
	if err := TooBig(dense); err != nil {
		t.Fatalf("the dense file is refused outright (%v); the test wants one the cache must weigh", err)
	}
	tree, err = c.Parse(ctx, "dense.py", LanguageByName("python"), dense)
	if err != nil {
		t.Fatal(err)
	}
	tree.Release()
	// By bytes, both would fit (180 KB and 600 KB in 1 MiB); by its tree,
	// the dense file pushes the ordinary one out.
	if st := c.Stats(); st.Trees != 1 || st.Bytes != charge(Measure(dense)) || charge(Measure(dense)) < 3*len(dense) {
		t.Errorf("after a dense file of %d bytes: %+v, want only it kept, counted for its tree (%d bytes)", len(dense), st, charge(Measure(dense)))
	}
}
