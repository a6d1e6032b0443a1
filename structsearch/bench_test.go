package structsearch

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// BenchmarkSearchGoroot is a one-shot search of GOROOT/src (no cache), as
// `cchub search` runs it: walk, prefilter, parse, match.
func BenchmarkSearchGoroot(b *testing.B) {
	root, err := workspace.Open(wstest.GoSrc(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, pattern string }{
		{"selective", `atomic.AddInt64($A, $B)`},
		{"iferr", `if $X != nil { return $X }`},
		{"lock", `$A.Lock()`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				r, err := Search(context.Background(), root, Options{Pattern: bc.pattern, Lang: "go"})
				if err != nil {
					b.Fatal(err)
				}
				n = len(r.Matches)
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}

// BenchmarkMatchParsed isolates the matcher: trees parsed once, the
// pattern matched against each of them.
func BenchmarkMatchParsed(b *testing.B) {
	files := corpus(b, filepath.Join(wstest.GoSrc(b), "net", "http"), "go")
	language := syntax.LanguageByName("go")
	p, err := Compile(context.Background(), `if $X != nil { return $X }`, language)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var trees []*syntax.Tree
	for _, f := range files {
		tr, err := syntax.ParseOnce(context.Background(), language, f.src)
		if err != nil {
			b.Fatal(err)
		}
		trees = append(trees, tr)
	}
	defer func() {
		for _, tr := range trees {
			tr.Release()
		}
	}()
	b.ResetTimer()
	var n int
	for b.Loop() {
		n = 0
		for _, tr := range trees {
			n += len(matchOf(b, p, tr.RootNode(), tr.Source))
		}
	}
	b.ReportMetric(float64(n), "matches")
}

// BenchmarkSearchPython is a one-shot search of Python's standard library
// for a common pattern: nearly every file is parsed.
func BenchmarkSearchPython(b *testing.B) {
	out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_path("stdlib"))`).Output()
	wstest.RequirePeer(b, fmt.Sprintf("python3 and its standard library (%v): apt-get install python3", err), err == nil)
	root, err := workspace.Open(strings.TrimSpace(string(out)))
	if err != nil {
		b.Fatal(err)
	}
	for _, pattern := range []string{`self.$A = $A`, `os.fsencode($A)`} {
		b.Run(pattern, func(b *testing.B) {
			var n int
			for b.Loop() {
				r, err := Search(context.Background(), root, Options{Pattern: pattern, Lang: "python"})
				if err != nil {
					b.Fatal(err)
				}
				n = len(r.Matches)
			}
			b.ReportMetric(float64(n), "matches")
		})
	}
}
