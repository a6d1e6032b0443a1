package locate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cchub/textfmt"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// writeTree creates files (slash paths → content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openRoot(t testing.TB, dir string) *workspace.Root {
	t.Helper()
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ignoreTree is a small checkout with .gitignore files at two levels, a
// negation, a directory-only pattern, and the two directories every tool
// skips.
func ignoreTree(t testing.TB) *workspace.Root {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":              "*.log\n!keep.log\nbuild/\n/top-only.txt\n",
		"main.go":                 "package main // needle\n",
		"app.log":                 "needle\n",
		"keep.log":                "needle\n",
		"top-only.txt":            "needle\n",
		"build/out.go":            "package build // needle\n",
		"src/build":               "a file named build is not a directory: kept // needle\n",
		"src/top-only.txt":        "anchored patterns apply at their own level only // needle\n",
		"src/.gitignore":          "generated.go\n",
		"src/handler.go":          "package src // needle\n",
		"src/generated.go":        "package src // needle\n",
		"src/deep/generated.go":   "package deep // needle (nested .gitignore applies below too)\n",
		"src/deep/x.go":           "package deep // needle\n",
		"src/sub/build/x.go":      "package build // needle (build/ matches at any depth)\n",
		".git/HEAD":               "ref: refs/heads/main // needle\n",
		".git/config":             "needle\n",
		".cchub/spill/x.txt":      "needle\n",
		"docs/.hidden.md":         "needle in a dotfile\n",
		"web/app.ts":              "needle\n",
		"web/components/view.tsx": "needle\n",
	})
	return openRoot(t, dir)
}

var ignoreTreeVisible = []string{
	".gitignore", "docs/.hidden.md", "keep.log", "main.go", "src/.gitignore", "src/build",
	"src/deep/x.go", "src/handler.go", "src/top-only.txt", "web/app.ts", "web/components/view.tsx",
}

func globFiles(t *testing.T, root *workspace.Root, opts GlobOptions) []string {
	t.Helper()
	res, err := Glob(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Glob(%+v): %v", opts, err)
	}
	got := slices.Clone(res.Files)
	slices.Sort(got)
	return got
}

func TestGlobPatterns(t *testing.T) {
	root := ignoreTree(t)
	for _, c := range []struct {
		opts GlobOptions
		want []string
	}{
		// No slash: the file name, at any depth.
		{GlobOptions{Pattern: "*.go"}, []string{"main.go", "src/deep/x.go", "src/handler.go"}},
		{GlobOptions{Pattern: "handler.go"}, []string{"src/handler.go"}},
		{GlobOptions{Pattern: "*.{ts,tsx}"}, []string{"web/app.ts", "web/components/view.tsx"}},
		// A slash: the whole path from the search directory.
		{GlobOptions{Pattern: "src/*.go"}, []string{"src/handler.go"}},
		{GlobOptions{Pattern: "src/**/*.go"}, []string{"src/deep/x.go", "src/handler.go"}},
		{GlobOptions{Pattern: "**/*.tsx"}, []string{"web/components/view.tsx"}},
		{GlobOptions{Pattern: "./web/*.ts"}, []string{"web/app.ts"}},
		// Under a path: patterns from that path, or spelled from the root.
		{GlobOptions{Pattern: "deep/*.go", Path: "src"}, []string{"src/deep/x.go"}},
		{GlobOptions{Pattern: "src/deep/*.go", Path: "src"}, []string{"src/deep/x.go"}},
		{GlobOptions{Pattern: "*.go", Path: "src/deep"}, []string{"src/deep/x.go"}},
		// Ignored, .git and .cchub files never show; everything else does.
		{GlobOptions{Pattern: "**"}, ignoreTreeVisible},
		{GlobOptions{Pattern: "*"}, ignoreTreeVisible},
		{GlobOptions{Pattern: "*.log"}, []string{"keep.log"}},
		{GlobOptions{Pattern: "HEAD"}, nil},
		{GlobOptions{Pattern: "x.txt"}, nil},
	} {
		got := globFiles(t, root, c.opts)
		if !slices.Equal(got, c.want) {
			t.Errorf("Glob(%+v) = %q, want %q", c.opts, got, c.want)
		}
	}
}

func TestGlobNewestFirstAndLimit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 150; i++ {
		files[fmt.Sprintf("d%d/f%03d.txt", i%3, i)] = "x"
	}
	writeTree(t, dir, files)
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 150; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%d/f%03d.txt", i%3, i))
		mt := base.Add(time.Duration(i) * time.Minute)
		if i >= 140 {
			mt = base.Add(time.Hour * 1000) // a tie: broken by path
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	root := openRoot(t, dir)
	res, err := Glob(context.Background(), root, GlobOptions{Pattern: "*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 150 || len(res.Files) != DefaultGlobLimit || !res.Truncated {
		t.Fatalf("total %d, files %d, truncated %v; want 150, 100, true", res.Total, len(res.Files), res.Truncated)
	}
	// The ten newest tie; by path: d0/f141, d0/f144, ..., then f139, f138, ...
	if res.Files[0] != "d0/f141.txt" || res.Files[10] != "d1/f139.txt" || res.Files[11] != "d0/f138.txt" {
		t.Errorf("order: %q", res.Files[:12])
	}
	text := res.Text()
	if !strings.HasSuffix(text, "[showing 100 of 150 files, newest first; narrow the pattern or path]\n") {
		t.Errorf("text does not end with the limit note:\n%s", text[len(text)-200:])
	}
	if strings.Count(text, "\n") != 101 {
		t.Errorf("text has %d lines, want 101", strings.Count(text, "\n"))
	}

	res, _ = Glob(context.Background(), root, GlobOptions{Pattern: "d2/*.txt", Limit: 5})
	if res.Total != 50 || len(res.Files) != 5 || res.Files[0] != "d2/f140.txt" {
		t.Errorf("limit 5: total %d, files %q", res.Total, res.Files)
	}
	if strings.Contains(globText(t, root, GlobOptions{Pattern: "d2/f14*.txt"}), "showing") {
		t.Error("a complete list should have no limit note")
	}
}

func globText(t *testing.T, root *workspace.Root, opts GlobOptions) string {
	t.Helper()
	res, err := Glob(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text()
}

func TestGlobNoMatchTeaches(t *testing.T) {
	root := ignoreTree(t)
	for _, c := range []struct {
		pattern string
		want    string
	}{
		{"handler/*.go", `try "**/handler/*.go"`},
		{"handlers.go", `try "*handlers.go*"`},
		{"*.rs", "matches file names at any depth"},
	} {
		text := globText(t, root, GlobOptions{Pattern: c.pattern})
		if !strings.HasPrefix(text, fmt.Sprintf("No files match %q under the workspace root.", c.pattern)) || !strings.Contains(text, c.want) {
			t.Errorf("glob %q: %q, want it to say no files match and %q", c.pattern, text, c.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	root := ignoreTree(t)
	ctx := context.Background()
	_, err := Glob(ctx, root, GlobOptions{Pattern: "*.go", Path: "../"})
	if !errors.Is(err, workspace.ErrOutsideRoot) {
		t.Errorf("path outside: %v", err)
	}
	_, _, wantErr := root.Resolve("../")
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Errorf("the confinement error should reach the caller unchanged: %v vs %v", err, wantErr)
	}
	if _, err := Glob(ctx, root, GlobOptions{Pattern: "/etc/*.conf"}); !errors.Is(err, workspace.ErrOutsideRoot) {
		t.Errorf("absolute pattern outside: %v", err)
	}
	if got := globFiles(t, root, GlobOptions{Pattern: filepath.Join(root.Dir(), "src", "*.go")}); !slices.Equal(got, []string{"src/handler.go"}) {
		t.Errorf("absolute pattern inside the root: %q", got)
	}
	if _, err := Glob(ctx, root, GlobOptions{Pattern: "[abc"}); err == nil || !strings.Contains(err.Error(), "invalid glob pattern") {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := Glob(ctx, root, GlobOptions{Pattern: ""}); err == nil {
		t.Error("empty pattern accepted")
	}
	if _, err := Glob(ctx, root, GlobOptions{Pattern: "*", Path: "main.go"}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("file as path: %v", err)
	}
	_, err = Glob(ctx, root, GlobOptions{Pattern: "*", Path: "scr"})
	var nf *workspace.NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, os.ErrNotExist) || !slices.Contains(nf.Suggestions, "src/") {
		t.Errorf("missing path: %v", err)
	}
}

func TestGlobOnGOROOT(t *testing.T) {
	src := filepath.Join(wstest.GoSrc(t), "net", "http")
	root := openRoot(t, src)
	res, err := Glob(context.Background(), root, GlobOptions{Pattern: "server.go"})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(res.Files))
	if !slices.Equal(got, []string{"httptest/server.go", "server.go"}) {
		t.Errorf("server.go (a name, at any depth): %q", got)
	}
	want, _ := filepath.Glob(filepath.Join(src, "httptest", "*.go"))
	res, _ = Glob(context.Background(), root, GlobOptions{Pattern: "httptest/*.go"})
	if res.Total != len(want) || len(want) == 0 {
		t.Errorf("httptest/*.go: %d files, want %d", res.Total, len(want))
	}
}

func TestGlobThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 2345: "2,345", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := textfmt.Thousands(n); got != want {
			t.Errorf("textfmt.Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
