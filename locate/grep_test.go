package locate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

func grep(t *testing.T, root *workspace.Root, opts GrepOptions) *GrepResult {
	t.Helper()
	res, err := Grep(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Grep(%+v): %v", opts, err)
	}
	return res
}

// where lists the matches as "path:line".
func where(res *GrepResult) []string {
	var out []string
	for _, m := range res.Matches {
		out = append(out, fmt.Sprintf("%s:%d", m.Path, m.Line))
	}
	return out
}

func grepFixture(t *testing.T) *workspace.Root {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.go":          "package a\n\nfunc Alpha() {}\nfunc beta(x int) {}\n// calls Alpha()\n",
		"b/b.go":        "package b\n\nfunc (s *Server) ServeHTTP() {}\nvar re = `foo(a.b)*`\n",
		"b/c.ts":        "export function Alpha() {}\n",
		"b/d.tsx":       "const Alpha = () => <div/>;\n",
		"crlf.txt":      "first line\r\nALPHA beta\r\nlast\r\n",
		"notes.md":      "Alpha and alpha and ALPHA on one line\n",
		"zz/blob.bin":   "Alpha\x00\x01\x02 binary\n",
		"zz/after.go":   "package zz // Alpha\n",
		"deep/x/y/z.go": "package z\nfunc Alpha() {}\n",
	})
	return openRoot(t, dir)
}

func TestGrepFinds(t *testing.T) {
	root := grepFixture(t)
	for _, c := range []struct {
		opts GrepOptions
		want []string
	}{
		{GrepOptions{Pattern: `func \w+\(`}, []string{"a.go:3", "a.go:4", "deep/x/y/z.go:2"}},
		{GrepOptions{Pattern: `func \(\w+ \*\w+\) Serve`}, []string{"b/b.go:3"}},
		{GrepOptions{Pattern: "Alpha"}, []string{"a.go:3", "a.go:5", "b/c.ts:1", "b/d.tsx:1", "deep/x/y/z.go:2", "notes.md:1", "zz/after.go:1"}},
		{GrepOptions{Pattern: "^ALPHA"}, []string{"crlf.txt:2"}},
		{GrepOptions{Pattern: `beta$`}, nil}, // CRLF: the \r sits before the line end, as for grep and ripgrep
		{GrepOptions{Pattern: "alpha", IgnoreCase: true, Include: "*.{txt,md}"}, []string{"crlf.txt:2", "notes.md:1"}},
		{GrepOptions{Pattern: "foo(a.b)*", Literal: true}, []string{"b/b.go:4"}},
		{GrepOptions{Pattern: "Alpha()", Literal: true}, []string{"a.go:3", "a.go:5", "b/c.ts:1", "deep/x/y/z.go:2"}},
		{GrepOptions{Pattern: "Alpha", Include: "*.go"}, []string{"a.go:3", "a.go:5", "deep/x/y/z.go:2", "zz/after.go:1"}},
		{GrepOptions{Pattern: "Alpha", Include: "**/*.{ts,tsx}"}, []string{"b/c.ts:1", "b/d.tsx:1"}},
		{GrepOptions{Pattern: "Alpha", Include: "b/*"}, []string{"b/c.ts:1", "b/d.tsx:1"}},
		{GrepOptions{Pattern: "Alpha", Path: "deep"}, []string{"deep/x/y/z.go:2"}},
		{GrepOptions{Pattern: "Alpha", Path: "deep", Include: "x/**/*.go"}, []string{"deep/x/y/z.go:2"}},
		{GrepOptions{Pattern: "Alpha", Path: "b/c.ts"}, []string{"b/c.ts:1"}},
		{GrepOptions{Pattern: "Alpha", Path: "./b/../a.go"}, []string{"a.go:3", "a.go:5"}},
	} {
		res := grep(t, root, c.opts)
		if got := where(res); !slices.Equal(got, c.want) {
			t.Errorf("Grep(%+v) = %q, want %q", c.opts, got, c.want)
		}
		if res.Total != len(c.want) || res.Truncated {
			t.Errorf("Grep(%+v): total %d truncated %v", c.opts, res.Total, res.Truncated)
		}
	}
}

func TestGrepText(t *testing.T) {
	root := grepFixture(t)
	res := grep(t, root, GrepOptions{Pattern: "alpha", IgnoreCase: true, Path: "."})
	want := "Found 8 matches in 7 files\n" +
		"a.go\n3\tfunc Alpha() {}\n5\t// calls Alpha()\n" +
		"b/c.ts\n1\texport function Alpha() {}\n" +
		"b/d.tsx\n1\tconst Alpha = () => <div/>;\n" +
		"crlf.txt\n2\tALPHA beta\n" +
		"deep/x/y/z.go\n2\tfunc Alpha() {}\n" +
		"notes.md\n1\tAlpha and alpha and ALPHA on one line\n" +
		"zz/after.go\n1\tpackage zz // Alpha\n"
	if got := res.Text(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	if res.Files != 7 || res.SkippedBinary != 1 {
		t.Errorf("files %d, skipped binary %d", res.Files, res.SkippedBinary)
	}
	one := grep(t, root, GrepOptions{Pattern: "ServeHTTP"})
	if got := one.Text(); !strings.HasPrefix(got, "Found 1 match in 1 file\nb/b.go\n3\t") {
		t.Errorf("one match: %q", got)
	}
}

func TestGrepSkipsBinaryIgnoredAndState(t *testing.T) {
	root := ignoreTree(t)
	res := grep(t, root, GrepOptions{Pattern: "needle"})
	var got []string
	for _, m := range res.Matches {
		got = append(got, m.Path)
	}
	want := []string{".gitignore", "docs/.hidden.md", "keep.log", "main.go", "src/build", "src/deep/x.go", "src/handler.go", "src/top-only.txt", "web/app.ts", "web/components/view.tsx"}
	// .gitignore has no "needle"; the rest of the visible files do.
	want = want[1:]
	if !slices.Equal(got, want) {
		t.Errorf("matched %q,\nwant    %q", got, want)
	}

	bin := grepFixture(t)
	res = grep(t, bin, GrepOptions{Pattern: "binary"})
	if res.Total != 0 || res.SkippedBinary != 1 {
		t.Fatalf("binary file searched: %+v", res)
	}
	text := res.Text()
	for _, w := range []string{"No matches for `binary` in the workspace", "searched 8 text files", "skipped 1 binary file", "ignored by .gitignore are not searched"} {
		if !strings.Contains(text, w) {
			t.Errorf("no-match text %q lacks %q", text, w)
		}
	}
	if _, err := Grep(context.Background(), bin, GrepOptions{Pattern: "Alpha", Path: "zz/blob.bin"}); err == nil || !strings.Contains(err.Error(), "binary file") {
		t.Errorf("grep of a binary file by name: %v", err)
	}
}

func TestGrepNamedIgnoredPaths(t *testing.T) {
	root := ignoreTree(t)
	// A file named outright is searched even though .gitignore ignores it.
	res := grep(t, root, GrepOptions{Pattern: "needle", Path: "app.log"})
	if !slices.Equal(where(res), []string{"app.log:1"}) {
		t.Errorf("named ignored file: %q", where(res))
	}
	// An ignored directory cannot be walked; the answer says why.
	res = grep(t, root, GrepOptions{Pattern: "needle", Path: "build"})
	if res.Total != 0 || !res.PathIgnored || !strings.Contains(res.Text(), "build is ignored by .gitignore") {
		t.Errorf("ignored dir: %+v %q", res, res.Text())
	}
	res = grep(t, root, GrepOptions{Pattern: "needle", Include: "*.rs"})
	if !strings.Contains(res.Text(), `no files in the workspace match include "*.rs"`) {
		t.Errorf("include that matches nothing: %q", res.Text())
	}
}

func TestGrepLongLine(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", 3000) + " needle " + strings.Repeat("x", 1992)
	writeTree(t, dir, map[string]string{"min.js": "short needle\n" + long + "\n"})
	res := grep(t, openRoot(t, dir), GrepOptions{Pattern: "needle"})
	if res.Total != 2 {
		t.Fatalf("total %d", res.Total)
	}
	m := res.Matches[1]
	if m.Chars != 5000 || m.Text != strings.Repeat("é", 2000) {
		t.Errorf("cut line: chars %d, text %d runes", m.Chars, len([]rune(m.Text)))
	}
	if !strings.Contains(res.Text(), "\n2\t"+strings.Repeat("é", 2000)+" … [line cut: showing 2,000 of 5,000 chars]\n") {
		t.Error("the cut line is not marked in the text")
	}
	if res.Matches[0].Chars != 0 {
		t.Error("a short line marked as cut")
	}
}

func TestGrepInvalidRegexp(t *testing.T) {
	root := grepFixture(t)
	_, err := Grep(context.Background(), root, GrepOptions{Pattern: "foo("})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"invalid regexp `foo(`", "missing closing )", "literal: true"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if _, err := Grep(context.Background(), root, GrepOptions{Pattern: "foo(", Literal: true}); err != nil {
		t.Errorf("literal foo(: %v", err)
	}
	if _, err := Grep(context.Background(), root, GrepOptions{Pattern: `a\nb`}); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("newline pattern: %v", err)
	}
	if _, err := Grep(context.Background(), root, GrepOptions{Pattern: ""}); err == nil {
		t.Error("empty pattern accepted")
	}
	if _, err := Grep(context.Background(), root, GrepOptions{Pattern: "x", Include: "{a"}); err == nil || !strings.Contains(err.Error(), "include") {
		t.Errorf("bad include: %v", err)
	}
}

func TestGrepLimitAndTotal(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for f := 0; f < 25; f++ {
		var b strings.Builder
		for l := 1; l <= 20; l++ {
			if l%2 == 0 {
				b.WriteString("hit hit hit\n") // three matches, one matching line
			} else {
				b.WriteString("miss\n")
			}
		}
		files[fmt.Sprintf("f%02d.txt", f)] = b.String()
	}
	writeTree(t, dir, files)
	root := openRoot(t, dir)
	for range 3 { // parallel workers, same answer every time
		res := grep(t, root, GrepOptions{Pattern: "hit"})
		if res.Total != 250 || res.Files != 25 || len(res.Matches) != 100 || !res.Truncated {
			t.Fatalf("total %d files %d shown %d truncated %v", res.Total, res.Files, len(res.Matches), res.Truncated)
		}
		if got := where(res); got[0] != "f00.txt:2" || got[9] != "f00.txt:20" || got[99] != "f09.txt:20" {
			t.Errorf("first matches are not the first in path order: %q ... %q", got[:2], got[98:])
		}
		if !strings.HasPrefix(res.Text(), "Found 250 matches in 25 files; showing the first 100. Narrow with") {
			t.Errorf("header: %q", strings.SplitN(res.Text(), "\n", 2)[0])
		}
	}
	res := grep(t, root, GrepOptions{Pattern: "hit", Limit: 3, Include: "f1*"})
	if res.Total != 100 || !slices.Equal(where(res), []string{"f10.txt:2", "f10.txt:4", "f10.txt:6"}) {
		t.Errorf("limit 3: total %d, %q", res.Total, where(res))
	}
}

func TestGrepConfinement(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "needle\n"})
	writeTree(t, dir, map[string]string{"in.txt": "needle\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	for _, p := range []string{"../", outside, "link.txt", "linkdir", "linkdir/secret.txt"} {
		_, err := Grep(context.Background(), root, GrepOptions{Pattern: "needle", Path: p})
		_, _, want := root.Resolve(p)
		if !errors.Is(err, workspace.ErrOutsideRoot) || err.Error() != want.Error() {
			t.Errorf("path %q: %v, want the Resolve error %v", p, err, want)
		}
	}
	// Walking the root never follows the links out.
	res := grep(t, root, GrepOptions{Pattern: "needle"})
	if !slices.Equal(where(res), []string{"in.txt:1"}) {
		t.Errorf("walk followed a link out: %q", where(res))
	}
}

func TestGrepMissingPathSuggests(t *testing.T) {
	root := grepFixture(t)
	_, err := Grep(context.Background(), root, GrepOptions{Pattern: "x", Path: "deep/x/y/zz.go"})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "did you mean deep/x/y/z.go") {
		t.Errorf("missing path: %v", err)
	}
}

func TestGrepCancelled(t *testing.T) {
	root := openRoot(t, wstest.GoSrc(t))
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(5 * time.Millisecond)
		cancel()
	}()
	_, err := Grep(ctx, root, GrepOptions{Pattern: `[A-Z]{3}[0-9]{3}`})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled grep: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := Grep(ctx, root, GrepOptions{Pattern: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("grep with a cancelled context: %v", err)
	}
	// Every worker has returned with Grep.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Grep, %d before", n, before)
	}
}

// On GOROOT's net/http, Grep finds exactly the lines a plain walk with
// per-line regexp finds.
func TestGrepMatchesReferenceOnGOROOT(t *testing.T) {
	dir := filepath.Join(wstest.GoSrc(t), "net", "http")
	root := openRoot(t, dir)
	for _, pat := range []string{`func \(\w+ \*\w+\) Serve`, `ErrAbortHandler`, `(?i)content-type`, `\w+_test\b`, `[A-Z]{3}[0-9]{3}`} {
		re := regexp.MustCompile(pat)
		want := map[string]int{}
		total := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			data, _ := os.ReadFile(p)
			if workspace.IsBinary(data) {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				if re.MatchString(l) {
					total++
					if total <= 1000 {
						want[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1)]++
					}
				}
			}
			return nil
		})
		res := grep(t, root, GrepOptions{Pattern: pat, Limit: 1000})
		if res.Total != total {
			t.Errorf("%q: total %d, reference %d", pat, res.Total, total)
		}
		if total <= 1000 {
			for _, w := range where(res) {
				want[w]--
			}
			for k, v := range want {
				if v != 0 {
					t.Errorf("%q: %s differs (%+d)", pat, k, v)
				}
			}
		}
	}
}

func BenchmarkGrepGOROOT(b *testing.B) {
	root := openRoot(b, wstest.GoSrc(b))
	for _, pat := range []string{"ErrAbortHandler", `func \(\w+ \*\w+\) Serve`, `[A-Z]{3}[0-9]{3}`} {
		b.Run(pat, func(b *testing.B) {
			for b.Loop() {
				if _, err := Grep(context.Background(), root, GrepOptions{Pattern: pat}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A line with a NUL after the first 8 KiB is text, as for git.
func TestGrepLateNULIsText(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("text line\n"), 1000)
	data = append(data, "needle\x00\n"...)
	if err := os.WriteFile(filepath.Join(dir, "late.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := grep(t, openRoot(t, dir), GrepOptions{Pattern: "needle"})
	if !slices.Equal(where(res), []string{"late.txt:1001"}) {
		t.Errorf("%q", where(res))
	}
}

// A spilled output under .cchub (which walks skip) is found again by grep
// and read when named by its path. (The bound that writes it is hub's.)
func TestGrepAndReadFindSpilledOutput(t *testing.T) {
	dir := t.TempDir()
	spill := ".cchub/spill/grep-1.txt"
	writeTree(t, dir, map[string]string{spill: numbered(1, 3000)})
	root := openRoot(t, dir)
	if res := grep(t, root, GrepOptions{Pattern: "^line 2999$"}); res.Total != 0 {
		t.Errorf("grep of the tree searched .cchub: %q", where(res))
	}
	res := grep(t, root, GrepOptions{Pattern: "^line 2999$", Path: spill})
	if !slices.Equal(where(res), []string{spill + ":2999"}) {
		t.Errorf("grep of the spill file: %q", where(res))
	}
	page := read(t, root, ReadOptions{Path: spill, Offset: 2999, Limit: 1})
	if got, want := page.Text(), spill+":2999 (of 3,000 lines)\n2999\tline 2999\n[continue with read path="+spill+" offset=3000]\n"; got != want {
		t.Errorf("read of the spill file:\n got %q\nwant %q", got, want)
	}
}

// A named pipe in the tree neither blocks grep nor is read by read.
func TestGrepAndReadSkipPipes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "needle\n"})
	if err := exec.Command("mkfifo", filepath.Join(dir, "pipe")).Run(); err != nil {
		t.Skip("no named pipes here:", err)
	}
	root := openRoot(t, dir)
	done := make(chan *GrepResult)
	go func() {
		res, _ := Grep(context.Background(), root, GrepOptions{Pattern: "needle"})
		done <- res
	}()
	select {
	case res := <-done:
		if res == nil || !slices.Equal(where(res), []string{"a.txt:1"}) {
			t.Errorf("grep with a pipe in the tree: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("grep blocked on a named pipe")
	}
	if _, err := Grep(context.Background(), root, GrepOptions{Pattern: "x", Path: "pipe"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("grep of a pipe by name: %v", err)
	}
	if _, err := Read(context.Background(), root, ReadOptions{Path: "pipe"}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("read of a pipe: %v", err)
	}
}

// A file that starts with a byte-order mark: ^ matches its first line as
// read shows it, and the match's text carries no BOM.
func TestGrepAnchorsAfterTheBOM(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bom.go"), []byte("\ufeffpackage b\n\nfunc G() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := openRoot(t, dir)
	res := grep(t, root, GrepOptions{Pattern: "^package"})
	if res.Total != 1 || res.Matches[0].Line != 1 || res.Matches[0].Text != "package b" {
		t.Fatalf("^package on a BOM file: %+v", res.Matches)
	}
}
