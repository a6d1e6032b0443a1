package locate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cchub/locate"
	"cchub/workspace"
)

// exampleRoot is a tiny checkout: two Go files (handler.go the newer), a
// .gitignore that hides build/, and a 25-line notes.txt.
func exampleRoot() (*workspace.Root, func()) {
	dir, err := os.MkdirTemp("", "locate-example")
	if err != nil {
		panic(err)
	}
	files := map[string]string{
		".gitignore":         "build/\n",
		"main.go":            "package main\n\nfunc main() { serve() }\n",
		"src/handler.go":     "package src\n\n// ServeHTTP answers.\nfunc ServeHTTP() {}\n",
		"build/generated.go": "package build\n\nfunc ServeHTTP() {}\n",
	}
	for i := 1; i <= 25; i++ {
		files["notes.txt"] += fmt.Sprintf("note %d\n", i)
	}
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.WriteFile(abs, []byte(content), 0o644)
	}
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "main.go"), old, old)
	root, err := workspace.Open(dir)
	if err != nil {
		panic(err)
	}
	return root, func() { os.RemoveAll(dir) }
}

func ExampleGlob() {
	root, done := exampleRoot()
	defer done()
	ctx := context.Background()

	// No slash: file names at any depth, newest first; build/ is ignored.
	res, _ := locate.Glob(ctx, root, locate.GlobOptions{Pattern: "*.go"})
	fmt.Print(res.Text())

	res, _ = locate.Glob(ctx, root, locate.GlobOptions{Pattern: "handler/*.go"})
	fmt.Print(res.Text())
	// Output:
	// src/handler.go
	// main.go
	// No files match "handler/*.go" under the workspace root. A pattern with a slash matches the whole path from the search directory; to match at any depth, try "**/handler/*.go". (Files ignored by .gitignore are not listed.)
}

func ExampleGrep() {
	root, done := exampleRoot()
	defer done()
	ctx := context.Background()

	res, _ := locate.Grep(ctx, root, locate.GrepOptions{Pattern: `(?i)serve`})
	fmt.Print(res.Text())

	res, _ = locate.Grep(ctx, root, locate.GrepOptions{Pattern: "ServeHTTP", Include: "main.go"})
	fmt.Print(res.Text())

	_, err := locate.Grep(ctx, root, locate.GrepOptions{Pattern: "serve("})
	fmt.Println(err)
	// Output:
	// Found 3 matches in 2 files
	// main.go
	// 3	func main() { serve() }
	// src/handler.go
	// 3	// ServeHTTP answers.
	// 4	func ServeHTTP() {}
	// No matches for `ServeHTTP` in the workspace among files matching "main.go" (searched 1 text file; files ignored by .gitignore are not searched). The search is case-sensitive; ignore_case: true widens it.
	// grep: invalid regexp `serve(`: error parsing regexp: missing closing ): `serve(`; to search for the text as written, pass literal: true (or escape the special characters with \)
}

func ExampleRead() {
	root, done := exampleRoot()
	defer done()
	ctx := context.Background()

	res, _ := locate.Read(ctx, root, locate.ReadOptions{Path: "notes.txt", Offset: 10, Limit: 3})
	fmt.Print(res.Text())

	res, _ = locate.Read(ctx, root, locate.ReadOptions{Path: "main.go", Limit: 1})
	fmt.Print(res.Text())

	res, _ = locate.Read(ctx, root, locate.ReadOptions{Path: "."})
	fmt.Print(res.Text())

	_, err := locate.Read(ctx, root, locate.ReadOptions{Path: "src/hnadler.go"})
	fmt.Println(err)
	_, err = locate.Read(ctx, root, locate.ReadOptions{Path: "notes.txt", Offset: 40})
	fmt.Println(err)
	// Output:
	// notes.txt:10-12 (of 25 lines)
	// 10	note 10
	// 11	note 11
	// 12	note 12
	// [continue with read path=notes.txt offset=13]
	// main.go:1 (of 3 lines)
	// 1	package main
	// [continue with read path=main.go offset=2]
	// .gitignore
	// build/  (ignored by .gitignore)
	// main.go
	// notes.txt
	// src/
	// [end of directory the workspace root, 5 entries]
	// no such file: src/hnadler.go; did you mean src/handler.go?
	// read: offset 40 is past the end of notes.txt, which has 25 lines; its last lines: read path=notes.txt offset=1
}
