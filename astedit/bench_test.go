package astedit

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace/wstest"
)

// BenchmarkRewrite stages and commits a rewrite of 1,000 files, copied
// from Go's own source, and writes the same contents with a plain loop of
// os.WriteFile: the commit's price of safety (a journal, a synced
// temporary file per file, renames, synced directories) is the ratio.
//
//	go test -run '^$' -bench Rewrite -benchtime 1x ./astedit/
func BenchmarkRewrite(b *testing.B) {
	src := os.Getenv("CCHUB_BENCH_GO")
	if src == "" {
		src = wstest.GoSrc(b)
	}
	const want = 1000
	for range b.N {
		dir := b.TempDir()
		copied := copyMatching(b, src, dir, want)
		root, st := openWSNoCleanup(b, dir)
		ctx := context.Background()

		start := time.Now()
		c, _, err := Rewrite(ctx, root, RewriteOptions{
			Pattern:  "if err != nil { $$$BODY }",
			Template: "if err != nil {\n\t// checked\n\t$$$BODY\n}",
			Lang:     "go",
		})
		if err != nil {
			b.Fatal(err)
		}
		s, err := Stage(ctx, st, c)
		if err != nil {
			b.Fatal(err)
		}
		stage := time.Since(start)
		if len(s.Files) < want {
			b.Fatalf("the rewrite touches %d files of %d copied; want %d", len(s.Files), copied, want)
		}

		start = time.Now()
		if _, err := Commit(ctx, root, st, s.ID); err != nil {
			b.Fatal(err)
		}
		commit := time.Since(start)

		// The same writes, unsafely: back to old, then a WriteFile each.
		for _, f := range c.Files {
			os.WriteFile(filepath.Join(dir, f.Path), f.Old, 0o644)
		}
		start = time.Now()
		for _, f := range c.Files {
			if err := os.WriteFile(filepath.Join(dir, f.Path), f.New, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		plain := time.Since(start)
		st.Close()
		root.Close()

		b.ReportMetric(float64(len(s.Files)), "files")
		b.ReportMetric(float64(s.Matches), "matches")
		b.ReportMetric(stage.Seconds(), "stage-s")
		b.ReportMetric(commit.Seconds(), "commit-s")
		b.ReportMetric(plain.Seconds(), "writefile-s")
		b.ReportMetric(commit.Seconds()/plain.Seconds(), "commit/writefile")
	}
}

// copyMatching copies Go files that hold the rewrite's shape (by a cheap
// text test; a few will not match structurally) from src into dir, a
// fifth more than want, and returns how many it copied.
func copyMatching(b *testing.B, src, dir string, want int) int {
	b.Helper()
	n := 0
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= want*6/5 {
			return fs.SkipDir
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("err != nil {")) {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if os.WriteFile(dst, data, 0o644) == nil {
			n++
		}
		return nil
	})
	return n
}
