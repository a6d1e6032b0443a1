package locate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

func read(t *testing.T, root *workspace.Root, opts ReadOptions) *ReadResult {
	t.Helper()
	res, err := Read(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Read(%+v): %v", opts, err)
	}
	return res
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadPaging(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.txt": numbered(1, 5120), "small.go": "package a\n\nfunc A() {}\n"})
	root := openRoot(t, dir)

	res := read(t, root, ReadOptions{Path: "big.txt"})
	text := res.Text()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 2001 || lines[0] != "     1\tline 1" || lines[1999] != "  2000\tline 2000" {
		t.Errorf("first page: %d lines, %q ... %q", len(lines), lines[0], lines[1999])
	}
	if lines[2000] != "[lines 1-2000 of 5120; continue with offset=2001]" || res.NextOffset != 2001 || res.Total != 5120 {
		t.Errorf("footer %q, next %d, total %d", lines[2000], res.NextOffset, res.Total)
	}

	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 2001})
	if res.Lines[0].Line != 2001 || res.Lines[0].Text != "line 2001" || len(res.Lines) != 2000 || res.NextOffset != 4001 {
		t.Errorf("second page: first %+v, %d lines, next %d", res.Lines[0], len(res.Lines), res.NextOffset)
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 4001})
	if !strings.HasSuffix(res.Text(), "  5120\tline 5120\n[lines 4001-5120 of 5120; end of file]\n") || res.NextOffset != 0 {
		t.Errorf("last page ends %q", res.Text()[len(res.Text())-80:])
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 10, Limit: 3})
	if got := res.Text(); got != "    10\tline 10\n    11\tline 11\n    12\tline 12\n[lines 10-12 of 5120; continue with offset=13]\n" {
		t.Errorf("window: %q", got)
	}
	res = read(t, root, ReadOptions{Path: "small.go"})
	if got := res.Text(); got != "     1\tpackage a\n     2\t\n     3\tfunc A() {}\n[end of file, 3 lines]\n" {
		t.Errorf("small file: %q", got)
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 5120})
	if got := res.Text(); got != "  5120\tline 5120\n[lines 5120-5120 of 5120; end of file]\n" {
		t.Errorf("last line: %q", got)
	}
	// Line numbers wider than six digits still come before a tab.
	if got := (&ReadResult{Path: "x", Offset: 1234567, Total: 1234567, Lines: []ReadLine{{Line: 1234567, Text: "x"}}}).Text(); !strings.HasPrefix(got, "1234567\tx\n") {
		t.Errorf("wide number: %q", got)
	}
}

func TestReadOffsetPastEnd(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": numbered(1, 120)})
	_, err := Read(context.Background(), openRoot(t, dir), ReadOptions{Path: "a.txt", Offset: 500})
	if err == nil || !strings.Contains(err.Error(), "offset 500 is past the end of a.txt, which has 120 lines") {
		t.Errorf("offset past end: %v", err)
	}
	_, err = Read(context.Background(), openRoot(t, dir), ReadOptions{Path: "a.txt", Offset: -1})
	if err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative offset: %v", err)
	}
}

func TestReadLineEndings(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"crlf.txt":     "one\r\ntwo\r\n\r\nfour\r\n",
		"nonl.txt":     "one\ntwo",
		"bom.txt":      "\uFEFFfirst\nsecond\n",
		"empty.txt":    "",
		"newline.txt":  "\n",
		"lone-cr.txt":  "a\rb\n",
		"cr-only.txt":  "x\r",
		"blank-end.go": "a\n\n",
	})
	root := openRoot(t, dir)
	for _, c := range []struct{ path, want string }{
		{"crlf.txt", "     1\tone\n     2\ttwo\n     3\t\n     4\tfour\n[end of file, 4 lines]\n"},
		{"nonl.txt", "     1\tone\n     2\ttwo\n[end of file, 2 lines]\n"},
		{"bom.txt", "     1\tfirst\n     2\tsecond\n[end of file, 2 lines]\n"},
		{"empty.txt", "empty.txt is empty (0 bytes).\n"},
		{"newline.txt", "     1\t\n[end of file, 1 line]\n"},
		{"lone-cr.txt", "     1\ta\rb\n[end of file, 1 line]\n"},
		{"cr-only.txt", "     1\tx\n[end of file, 1 line]\n"},
		{"blank-end.go", "     1\ta\n     2\t\n[end of file, 2 lines]\n"},
	} {
		if got := read(t, root, ReadOptions{Path: c.path}).Text(); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
	if res := read(t, root, ReadOptions{Path: "empty.txt", Offset: 7}); res.Total != 0 {
		t.Errorf("empty file with an offset: %+v", res)
	}
}

func TestReadLongLine(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"min.js": strings.Repeat("ü", 2500) + "\nshort\n" + strings.Repeat("a", 2000) + "\r\n" + strings.Repeat("b", 2001) + "\n",
	})
	res := read(t, openRoot(t, dir), ReadOptions{Path: "min.js"})
	if l := res.Lines[0]; l.Chars != 2500 || l.Text != strings.Repeat("ü", 2000) {
		t.Errorf("long line: chars %d, %d runes shown", l.Chars, len([]rune(l.Text)))
	}
	if l := res.Lines[2]; l.Chars != 0 || len(l.Text) != 2000 {
		t.Errorf("2000 chars and a CR: cut as %d of %d", len(l.Text), l.Chars)
	}
	if l := res.Lines[3]; l.Chars != 2001 || len(l.Text) != 2000 {
		t.Errorf("2001 chars: %d of %d", len(l.Text), l.Chars)
	}
	if !strings.Contains(res.Text(), "     1\t"+strings.Repeat("ü", 2000)+" … [line cut: showing 2,000 of 2,500 chars]\n     2\tshort\n") {
		t.Error("the cut is not marked")
	}
}

func TestReadRefusesAndExplains(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"img.png":    "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"latin1.txt": "caf\xe9\nplain\nna\xefve \xff\n",
	})
	// A text head, then a sparse tail: a file over the size limit.
	big := filepath.Join(dir, "huge.log")
	if err := os.WriteFile(big, []byte(numbered(1, 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, workspace.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	ctx := context.Background()

	if _, err := Read(ctx, root, ReadOptions{Path: "img.png"}); !errors.Is(err, workspace.ErrBinary) || !strings.Contains(err.Error(), "img.png") {
		t.Errorf("binary: %v", err)
	}

	res := read(t, root, ReadOptions{Path: "latin1.txt"})
	want := "     1\tcaf\uFFFD\n     2\tplain\n     3\tna\uFFFDve \uFFFD\n" +
		"[note: latin1.txt has bytes that are not valid UTF-8 (first shown at line 1); they are shown as \uFFFD]\n" +
		"[end of file, 3 lines]\n"
	if got := res.Text(); got != want || res.InvalidUTF8Line != 1 {
		t.Errorf("invalid UTF-8: %q", got)
	}
	if res := read(t, root, ReadOptions{Path: "latin1.txt", Offset: 2, Limit: 1}); res.InvalidUTF8Line != 0 || strings.Contains(res.Text(), "note") {
		t.Errorf("a clean window of a file with bad bytes elsewhere: %q", res.Text())
	}

	_, err := Read(ctx, root, ReadOptions{Path: "huge.log"})
	if !errors.Is(err, workspace.ErrTooLarge) || !strings.Contains(err.Error(), "offset/limit") {
		t.Errorf("too large: %v", err)
	}
	res = read(t, root, ReadOptions{Path: "huge.log", Offset: 999, Limit: 2})
	if got := res.Text(); got != "   999\tline 999\n  1000\tline 1000\n[lines 999-1000 of 1001; continue with offset=1001]\n" {
		t.Errorf("window of a large file: %q", got)
	}
}

func TestReadDirectory(t *testing.T) {
	root := ignoreTree(t)
	if err := os.Symlink("src/handler.go", filepath.Join(root.Dir(), "link.go")); err != nil {
		t.Fatal(err)
	}
	res := read(t, root, ReadOptions{Path: "."})
	want := ".gitignore\n" +
		"app.log  (ignored by .gitignore)\n" +
		"build/  (ignored by .gitignore)\n" +
		"docs/\n" +
		"keep.log\n" +
		"link.go -> src/handler.go\n" +
		"main.go\n" +
		"src/\n" +
		"top-only.txt  (ignored by .gitignore)\n" +
		"web/\n" +
		"[end of directory the workspace root, 10 entries]\n"
	if got := res.Text(); got != want {
		t.Errorf("root listing:\n%s\nwant:\n%s", got, want)
	}
	res = read(t, root, ReadOptions{Path: "src", Offset: 2, Limit: 3})
	want = "build\n" +
		"deep/\n" +
		"generated.go  (ignored by .gitignore)\n" +
		"[entries 2-4 of 7; continue with offset=5]\n"
	if got := res.Text(); got != want {
		t.Errorf("src page:\n%s\nwant:\n%s", got, want)
	}
	res = read(t, root, ReadOptions{Path: "build"})
	if got := res.Text(); !strings.HasPrefix(got, "[build/ is ignored by .gitignore: glob and grep do not look inside it]\nout.go\n") {
		t.Errorf("ignored dir: %q", got)
	}
	if err := os.Mkdir(filepath.Join(root.Dir(), "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, ReadOptions{Path: "empty/"}).Text(); got != "Directory empty/ is empty.\n" {
		t.Errorf("empty dir: %q", got)
	}
	if _, err := Read(context.Background(), root, ReadOptions{Path: "src", Offset: 50}); err == nil || !strings.Contains(err.Error(), "has 7 entries") {
		t.Errorf("offset past the entries: %v", err)
	}
}

func TestReadStateAndGitFilesByPath(t *testing.T) {
	root := ignoreTree(t)
	if got := read(t, root, ReadOptions{Path: ".cchub/spill/x.txt"}).Text(); got != "     1\tneedle\n[end of file, 1 line]\n" {
		t.Errorf("spill file: %q", got)
	}
	if got := read(t, root, ReadOptions{Path: ".cchub/spill"}).Text(); got != "x.txt\n[end of directory .cchub/spill/, 1 entry]\n" {
		t.Errorf("spill dir: %q", got)
	}
}

func TestReadMissingSuggests(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"src/handler.go":       "package src\n",
		"src/handlers.go":      "package src\n",
		"src/other.go":         "package src\n",
		"internal/config.yaml": "a: 1\n",
		"cmd/tool/main.go":     "package main\n",
	})
	root := openRoot(t, dir)
	for _, c := range []struct{ path, want string }{
		{"src/hnadler.go", "no such file: src/hnadler.go; did you mean src/handler.go, src/handlers.go?"},
		{"config.yaml", "no such file: config.yaml; did you mean internal/config.yaml?"},
		{"cmd/main.go", "no such file: cmd/main.go; did you mean cmd/tool/main.go?"},
		{"src/Handler.go", "no such file: src/Handler.go; did you mean src/handler.go, src/handlers.go?"},
		{"srcs", "no such file: srcs; did you mean src/?"},
		{"nothing/like/this.rs", `no such file: nothing/like/this.rs; glob for its name (e.g. "**/this.rs") or read its parent directory nothing/like`},
		{"zzqqxx.rs", `no such file: zzqqxx.rs; glob for its name (e.g. "**/zzqqxx.rs") or read the workspace root (path ".")`},
	} {
		_, err := Read(context.Background(), root, ReadOptions{Path: c.path})
		if err == nil || err.Error() != c.want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Read(%q): %v\nwant: %s", c.path, err, c.want)
		}
	}
}

func TestReadConfinement(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret": "s\n"})
	writeTree(t, dir, map[string]string{"in.txt": "in\n"})
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out-link"))
	os.Symlink("in.txt", filepath.Join(dir, "in-link"))
	root := openRoot(t, dir)
	for _, p := range []string{"../x", filepath.Join(outside, "secret"), "out-link", "a/../../x", "in\x00.txt"} {
		_, err := Read(context.Background(), root, ReadOptions{Path: p})
		_, _, want := root.Resolve(p)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("Read(%q): %v, want the Resolve error %v", p, err, want)
		}
	}
	if got := read(t, root, ReadOptions{Path: filepath.Join(dir, "in-link")}).Text(); got != "     1\tin\n[end of file, 1 line]\n" {
		t.Errorf("absolute path through a link inside: %q", got)
	}
}

func TestReadOnGOROOT(t *testing.T) {
	src := filepath.Join(goroot(t), "src", "net", "http")
	data, err := os.ReadFile(filepath.Join(src, "server.go"))
	if err != nil {
		t.Skip(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	root := openRoot(t, src)
	for off := 1; off <= len(lines); off += DefaultReadLimit {
		res := read(t, root, ReadOptions{Path: "server.go", Offset: off})
		for i, l := range res.Lines {
			if l.Line != off+i || l.Text != lines[off+i-1] {
				t.Fatalf("line %d: %+v", off+i, l)
			}
		}
		if res.Total != len(lines) {
			t.Fatalf("total %d, want %d", res.Total, len(lines))
		}
	}
}
