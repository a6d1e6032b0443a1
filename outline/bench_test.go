package outline

import (
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

// BenchmarkOutlineNetHTTP outlines every .go file of GOROOT's net/http:
// cold parses each file (a fresh cache per round), warm finds every tree
// in the cache. ns/file is the cost of one outline.
func BenchmarkOutlineNetHTTP(b *testing.B) {
	dir := filepath.Join(outlineGoroot(b), "src", "net", "http")
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	wstest.RequirePeer(b, "Go's source tree: "+dir, len(matches) > 0)
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	for _, m := range matches {
		files = append(files, filepath.Base(m))
	}
	ctx := context.Background()
	outlineAll := func(b *testing.B, cache *syntax.ParseCache) {
		for _, f := range files {
			if _, err := Of(ctx, root, cache, f, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			outlineAll(b, syntax.NewParseCache(0))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/file")
	})
	b.Run("warm", func(b *testing.B) {
		cache := syntax.NewParseCache(0)
		outlineAll(b, cache)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			outlineAll(b, cache)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/file")
	})
}

// BenchmarkOutlineLargeFile outlines one 5,000-line file of real code,
// made by joining the declarations of net/http's server.go and
// transport.go and cutting after the first declaration to end past 5,000
// lines.
func BenchmarkOutlineLargeFile(b *testing.B) {
	src := filepath.Join(outlineGoroot(b), "src", "net", "http")
	var lines []string
	lines = append(lines, "package http", "")
	for _, name := range []string{"server.go", "transport.go", "client.go"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		wstest.RequirePeer(b, fmt.Sprintf("Go's source tree (%v)", err), err == nil)
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(l, "package ") {
				lines = append(lines, l)
			}
		}
	}
	n := 5000
	for n < len(lines) && lines[n-1] != "}" {
		n++
	}
	if n >= len(lines) {
		b.Fatalf("only %d lines of source", len(lines))
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(strings.Join(lines[:n], "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	root, _ := workspace.Open(dir)
	ctx := context.Background()
	check := func(b *testing.B, r *Result) {
		if r.File.Lines < 5000 || len(r.File.Symbols) < 100 {
			b.Fatalf("outlined %d lines into %d symbols", r.File.Lines, len(r.File.Symbols))
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := Of(ctx, root, syntax.NewParseCache(0), "big.go", Options{})
			if err != nil {
				b.Fatal(err)
			}
			check(b, r)
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache := syntax.NewParseCache(0)
		if _, err := Of(ctx, root, cache, "big.go", Options{}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			r, err := Of(ctx, root, cache, "big.go", Options{})
			if err != nil {
				b.Fatal(err)
			}
			check(b, r)
		}
	})
}

// BenchmarkOutlineBytes measures what an outline costs a model's context:
// the lean and the detail text of net/http/server.go (4,000 lines), as a
// share of the file's own bytes.
func BenchmarkOutlineBytes(b *testing.B) {
	dir := filepath.Join(outlineGoroot(b), "src", "net", "http")
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "server.go"))
	wstest.RequirePeer(b, fmt.Sprintf("Go's source tree (%v)", err), err == nil)
	for _, detail := range []bool{false, true} {
		name := "lean"
		if detail {
			name = "detail"
		}
		b.Run(name, func(b *testing.B) {
			var n int
			cache := syntax.NewParseCache(0)
			for i := 0; i < b.N; i++ {
				r, err := Of(context.Background(), root, cache, "server.go", Options{Detail: detail})
				if err != nil {
					b.Fatal(err)
				}
				n = len(r.Text())
			}
			b.ReportMetric(float64(n), "bytes")
			b.ReportMetric(100*float64(n)/float64(len(src)), "%of-file")
		})
	}
}
