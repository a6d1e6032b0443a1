package locate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cchub/textfmt"
	"cchub/workspace"
	"cchub/workspace/wstest"
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
	if len(lines) != 2002 || lines[0] != "big.txt:1-2000 (of 5,120 lines)" || lines[1] != "1\tline 1" || lines[2000] != "2000\tline 2000" {
		t.Errorf("first page: %d lines, %q, %q ... %q", len(lines), lines[0], lines[1], lines[2000])
	}
	if lines[2001] != "[continue with read path=big.txt offset=2001]" || res.NextOffset != 2001 || res.Total != 5120 {
		t.Errorf("footer %q, next %d, total %d", lines[2001], res.NextOffset, res.Total)
	}

	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 2001})
	if res.Lines[0].Line != 2001 || res.Lines[0].Text != "line 2001" || len(res.Lines) != 2000 || res.NextOffset != 4001 {
		t.Errorf("second page: first %+v, %d lines, next %d", res.Lines[0], len(res.Lines), res.NextOffset)
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 4001})
	if !strings.HasPrefix(res.Text(), "big.txt:4001-5120 (of 5,120 lines)\n4001\tline 4001\n") ||
		!strings.HasSuffix(res.Text(), "\n5120\tline 5120\n[end of file]\n") || res.NextOffset != 0 {
		t.Errorf("last page ends %q", res.Text()[len(res.Text())-80:])
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 10, Limit: 3})
	if got := res.Text(); got != "big.txt:10-12 (of 5,120 lines)\n10\tline 10\n11\tline 11\n12\tline 12\n[continue with read path=big.txt offset=13]\n" {
		t.Errorf("window: %q", got)
	}
	res = read(t, root, ReadOptions{Path: "small.go"})
	if got := res.Text(); got != "small.go:1-3 (of 3 lines)\n1\tpackage a\n2\t\n3\tfunc A() {}\n[end of file]\n" {
		t.Errorf("small file: %q", got)
	}
	res = read(t, root, ReadOptions{Path: "big.txt", Offset: 5120})
	if got := res.Text(); got != "big.txt:5120 (of 5,120 lines)\n5120\tline 5120\n[end of file]\n" {
		t.Errorf("last line: %q", got)
	}
	// Line numbers are not padded, however wide.
	if got := (&ReadResult{Path: "x", Offset: 1234567, Total: 1234567, Lines: []ReadLine{{Line: 1234567, Text: "x"}}}).Text(); got != "x:1234567 (of 1,234,567 lines)\n1234567\tx\n[end of file]\n" {
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
		{"crlf.txt", "crlf.txt:1-4 (of 4 lines)\n1\tone\n2\ttwo\n3\t\n4\tfour\n[end of file]\n"},
		{"nonl.txt", "nonl.txt:1-2 (of 2 lines)\n1\tone\n2\ttwo\n[end of file]\n"},
		{"bom.txt", "bom.txt:1-2 (of 2 lines)\n1\tfirst\n2\tsecond\n[end of file]\n"},
		{"empty.txt", "empty.txt is empty (0 bytes).\n"},
		{"newline.txt", "newline.txt:1 (of 1 line)\n1\t\n[end of file]\n"},
		{"lone-cr.txt", "lone-cr.txt:1 (of 1 line)\n1\ta\rb\n[end of file]\n"},
		{"cr-only.txt", "cr-only.txt:1 (of 1 line)\n1\tx\n[end of file]\n"},
		{"blank-end.go", "blank-end.go:1-2 (of 2 lines)\n1\ta\n2\t\n[end of file]\n"},
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
	if !strings.Contains(res.Text(), "\n1\t"+strings.Repeat("ü", 2000)+" … [line cut: showing 2,000 of 2,500 chars]\n2\tshort\n") {
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
	want := "latin1.txt:1-3 (of 3 lines)\n1\tcaf\uFFFD\n2\tplain\n3\tna\uFFFDve \uFFFD\n" +
		"[note: latin1.txt has bytes that are not valid UTF-8 (first shown at latin1.txt:1); they are shown as \uFFFD]\n" +
		"[end of file]\n"
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
	if got := res.Text(); got != "huge.log:999-1000 (of 1,001 lines)\n999\tline 999\n1000\tline 1000\n[continue with read path=huge.log offset=1001]\n" {
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
		"[entries 2-4 of 7; continue with read path=src offset=5]\n"
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
	if got := read(t, root, ReadOptions{Path: ".cchub/spill/x.txt"}).Text(); got != ".cchub/spill/x.txt:1 (of 1 line)\n1\tneedle\n[end of file]\n" {
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
	if got := read(t, root, ReadOptions{Path: filepath.Join(dir, "in-link")}).Text(); got != "in-link:1 (of 1 line)\n1\tin\n[end of file]\n" {
		t.Errorf("absolute path through a link inside: %q", got)
	}
}

func TestReadOnGOROOT(t *testing.T) {
	src := filepath.Join(wstest.GoSrc(t), "net", "http")
	data, err := os.ReadFile(filepath.Join(src, "server.go"))
	wstest.RequirePeer(t, "Go's source tree: "+filepath.Join(src, "server.go"), err == nil)
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

// With MaxBytes, a page stops at the last whole line that fits, and its
// footer names the next line exactly: reading on from each footer's offset
// gives the file back, without a gap or an overlap.
func TestReadMaxBytesPagesThroughTheFile(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%97))
	}
	content := b.String()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"big.txt": content})
	root := openRoot(t, dir)
	const maxBytes = 48 << 10
	footerRE := regexp.MustCompile(`\n\[(stopped at the output limit of 48 KB; )?continue with read path=big\.txt offset=(\d+)\]\n$`)
	var got strings.Builder
	offset, pages, cut := 1, 0, 0
	for pages < 100 {
		pages++
		text := read(t, root, ReadOptions{Path: "big.txt", Offset: offset, MaxBytes: maxBytes}).Text()
		if len(text) > maxBytes {
			t.Fatalf("page at %d is %d bytes, over %d", offset, len(text), maxBytes)
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		n := offset
		for _, l := range lines[1 : len(lines)-1] {
			num, rest, ok := strings.Cut(l, "\t")
			if !ok || num != strconv.Itoa(n) {
				t.Fatalf("page at %d: line %q, want number %d", offset, l, n)
			}
			got.WriteString(rest + "\n")
			n++
		}
		if want := fmt.Sprintf("big.txt:%s (of 5,000 lines)", textfmt.Span(offset, n-1)); lines[0] != want {
			t.Fatalf("header %q, want %q", lines[0], want)
		}
		if strings.HasSuffix(text, "\n[end of file]\n") {
			break
		}
		m := footerRE.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("page at %d ends %q", offset, text[max(0, len(text)-100):])
		}
		if m[1] != "" {
			cut++
		}
		if next, _ := strconv.Atoi(m[2]); next != n {
			t.Fatalf("page at %d shows up to line %d, and its footer continues at %d", offset, n-1, next)
		}
		offset = n
	}
	if got.String() != content {
		t.Fatalf("the pages put together are not the file (%d bytes of %d)", got.Len(), len(content))
	}
	if cut < 3 {
		t.Errorf("only %d of %d pages were cut by MaxBytes", cut, pages)
	}
	// Without MaxBytes the page is the limit's.
	if res := read(t, root, ReadOptions{Path: "big.txt"}); len(res.Lines) != DefaultReadLimit || res.CutAtBytes != 0 {
		t.Errorf("unbounded: %d lines, cut at %d", len(res.Lines), res.CutAtBytes)
	}
}

// A line longer than MaxBytes is still shown, alone and cut as any long
// line is; a directory listing is bounded the same way.
func TestReadMaxBytesShowsOneLineAtLeast(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"min.js": strings.Repeat("a", 5000) + "\nb\n"}
	for i := 0; i < 50; i++ {
		files[fmt.Sprintf("d/entry-%02d.txt", i)] = ""
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)
	res := read(t, root, ReadOptions{Path: "min.js", MaxBytes: 100})
	want := "min.js:1 (of 2 lines)\n1\t" + strings.Repeat("a", 2000) + " … [line cut: showing 2,000 of 5,000 chars]\n" +
		"[stopped at the output limit of 100 bytes; continue with read path=min.js offset=2]\n"
	if got := res.Text(); got != want || res.NextOffset != 2 {
		t.Errorf("one long line:\n got %q\nwant %q", got, want)
	}
	res = read(t, root, ReadOptions{Path: "d", Offset: 3, MaxBytes: 200})
	text := res.Text()
	if len(text) > 200 || len(res.Entries) < 3 || res.NextOffset != 3+len(res.Entries) || !strings.HasPrefix(text, "entry-02.txt\n") ||
		!strings.HasSuffix(text, fmt.Sprintf("[entries 3-%d of 50; stopped at the output limit of 200 bytes; continue with read path=d offset=%d]\n", res.NextOffset-1, res.NextOffset)) {
		t.Errorf("directory page (%d bytes):\n%s", len(text), text)
	}
}
