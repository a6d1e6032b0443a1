package textedit

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"cchub/syntax"
)

// bigPyFile concatenates Python's standard library modules (in name order)
// until the text has 10,000 lines. Whole modules only, each ending in a
// newline, so that the concatenation is valid Python too.
func bigPyFile(tb testing.TB) string {
	tb.Helper()
	dir := pyStdlib(tb)
	names, err := filepath.Glob(filepath.Join(dir, "*.py"))
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(names)
	var lines []string
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
		if len(lines) >= 10_000 {
			break
		}
	}
	if len(lines) < 10_000 {
		tb.Fatalf("Python's stdlib has only %d lines", len(lines))
	}
	return strings.Join(lines[:10_000], "\n") + "\n"
}

// bigCleanFile is bigFile without the declaration its 10,000th line cuts
// short, so that it parses without errors and the guard's count walks
// nothing.
func bigCleanFile(tb testing.TB) string {
	text := bigFile(tb)
	return text[:strings.LastIndex(text, "\n}\n")+3]
}

// guardBenchEdit is a one-line change near the middle of text: a comment
// appended to the first indented code line from line 5,000 on.
func guardBenchEdit(tb testing.TB, text, comment string) (after []byte, start, oldEnd, newEnd int) {
	tb.Helper()
	lines := strings.SplitAfter(text, "\n")
	off := 0
	for i, l := range lines {
		if i >= 5000 && strings.HasPrefix(l, "    ") || i >= 5000 && strings.HasPrefix(l, "\t") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") && !strings.Contains(t, `"`) && !strings.Contains(t, "'") && !strings.Contains(t, "`") {
				at := off + len(strings.TrimRight(l, "\n"))
				after = []byte(text[:at] + comment + text[at:])
				return after, at, at, at + len(comment)
			}
		}
		off += len(l)
	}
	tb.Fatal("no line to change")
	return nil, 0, 0, 0
}

// BenchmarkSyntaxGuard measures the guard on 10,000-line files: the first
// count of the file before (a full parse), a check of a one-line change by
// a full parse, and the same check by an incremental reparse from the
// tree of the file before (breaks finds the changed range itself,
// breaksEdit is given it).
func BenchmarkSyntaxGuard(b *testing.B) {
	ctx := context.Background()
	for _, f := range []struct {
		name, path, comment string
		text                func(testing.TB) string
	}{
		{"go", "big.go", " // guard", bigFile},
		{"go-clean", "big.go", " // guard", bigCleanFile},
		{"python", "big.py", "  # guard", bigPyFile},
	} {
		text := f.text(b)
		before := []byte(text)
		after, start, oldEnd, newEnd := guardBenchEdit(b, text, f.comment)
		language := syntax.LanguageFor(f.path)
		n, err := syntaxErrors(ctx, language, before)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %d lines, %d syntax errors before", f.name, strings.Count(text, "\n"), n)
		b.Run(f.name+"/before-cold", func(b *testing.B) {
			for b.Loop() {
				g := newGuard(ctx, f.path, before)
				if _, err := g.beforeErrors(); err != nil {
					b.Fatal(err)
				}
				g.close()
			}
		})
		b.Run(f.name+"/syntaxErrors-after", func(b *testing.B) {
			for b.Loop() {
				if _, err := syntaxErrors(ctx, language, after); err != nil {
					b.Fatal(err)
				}
			}
		})
		g := newGuard(ctx, f.path, before)
		if _, err := g.beforeErrors(); err != nil {
			b.Fatal(err)
		}
		b.Run(f.name+"/breaksFull", func(b *testing.B) {
			for b.Loop() {
				if broke, err := g.breaksFull(after); err != nil || broke {
					b.Fatal(broke, err)
				}
			}
		})
		b.Run(f.name+"/breaks", func(b *testing.B) {
			for b.Loop() {
				if broke, err := g.breaks(after); err != nil || broke {
					b.Fatal(broke, err)
				}
			}
		})
		b.Run(f.name+"/breaksEdit", func(b *testing.B) {
			for b.Loop() {
				if broke, err := g.breaksEdit(after, start, oldEnd, newEnd); err != nil || broke {
					b.Fatal(broke, err)
				}
			}
		})
		g.close()
	}
}
