package outline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

const boundChildEnv = "CCHUB_OUTLINE_BOUND_CHILD"

// TestOutlineBoundChild is run as a child by TestOutlineTooBigPeakMemory:
// it outlines the file, reads a symbol of it and maps its directory, in one
// process, and prints what each said.
func TestOutlineBoundChild(t *testing.T) {
	dir := os.Getenv(boundChildEnv)
	if dir == "" {
		t.Skip("run as a child by TestOutlineTooBigPeakMemory")
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	_, err = Of(ctx, root, cache, "lines.py", Options{})
	fmt.Printf("outline: %v (too big: %v)\n", err, errors.Is(err, syntax.ErrTooBig))
	_, err = ReadSymbol(ctx, root, cache, "lines.py:x", Budget{})
	fmt.Printf("read_symbol: %v (too big: %v)\n", err, errors.Is(err, syntax.ErrTooBig))
	r, err := Of(ctx, root, cache, ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("dir: files=%d other=%q\n", len(r.Dir.Files), r.Dir.Other)
}

// A 2 MiB file of one-character lines cost 1.2 GB to outline. Now it is
// refused before it is parsed, in words that say how to read it instead,
// and the child that tried stays near its own footprint.
func TestOutlineTooBigPeakMemory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lines.py"), bytes.Repeat([]byte("x\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.py"), []byte("def f():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, kib := wstest.RunChild(t, "TestOutlineBoundChild", boundChildEnv+"="+dir)
	for _, want := range []string{
		"outline: outline: lines.py is too large to parse",
		"read it in parts (read path=lines.py offset=1 limit=200) or find a name in it (grep pattern=NAME path=lines.py) (too big: true)",
		"read_symbol: read_symbol: lines.py is too large to parse",
		`dir: files=1 other=["lines.py (too large to parse)"]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the child's output lacks %q:\n%s", want, text)
		}
	}
	// The test binary's own footprint plus a few copies of the 2 MiB file;
	// parsing it took about 600 MiB, outlining it twice that.
	if limit := int64(80 << 10); kib > limit {
		t.Errorf("refusing to outline a 2 MiB file took %d KiB at peak, want < %d KiB", kib, limit)
	}
	t.Logf("peak %d KiB", kib)
}
