package structsearch

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/syntax"
	"cchub/workspace/wstest"
)

// soundness lists, per language, real source trees and patterns of every
// sort: selective and common, strings, repeated names, $$$, a bare
// metavariable, patterns with few literal tokens.
var soundness = []struct {
	language string
	dirs     func(tb testing.TB) []string
	patterns []string
}{
	{"go", gorootDirs("net/http", "strings", "fmt", "text/template/parse"), []string{
		`if $X != nil { return $X }`, `if err != nil { return $$$ }`, `$A.Lock()`, `defer $A.Close()`,
		`fmt.Println($$$)`, `fmt.Errorf("$$$F", $$$A)`, `errors.New($S)`, `"Content-Type"`, `"$S"`,
		`$X = append($X, $$$)`, `for $K, $V := range $M { $$$ }`, `func ($R *$T) ServeHTTP($W, $Q) { $$$ }`,
		`$A == nil`, `len($X) == 0`, `return nil, $E`, `switch $X.(type) { $$$ }`, `case $$$V: $$$`,
		`map[string]$T`, `[]byte($S)`, `$A[$I]`, `go func() { $$$ }()`, `$F($$$)`, `x`, `"// not a comment"`,
		`strings.Index($S, " ")`, `$A + 1`, `-1`, `if $X == nil { $X = $Y }`, `len($X) == len($X)`,
	}},
	{"python", pythonDirs("json", "email", "http", "logging"), []string{
		`if $X is None: return $X`, `self.$A = $A`, `os.fsencode($A)`, `print($$$)`, `raise $E($$$)`,
		`isinstance($X, str)`, `"$S"`, `'utf-8'`, `def $F(self, $$$): $$$`, `$A.append($B)`, `return None`,
		`for $K, $V in $D.items(): $$$`, `$X`, `f"{$X}"`, `$A == $A`, `"# not a comment"`,
		`len($X) == len($X)`, `if $X is None: $X = $Y`,
	}},
	{"c", gorootDirs("runtime/cgo", "cmd/cgo"), []string{
		`if ($X != NULL) free($X);`, `fprintf(stderr, $$$)`, `return $X;`, `#include <$H>`, `$A->$B`,
		`sizeof($T)`, `"%s"`, `$F($$$)`, `abort();`,
	}},
	{"javascript", gorootDirs("../lib/wasm", "../misc/chrome", "cmd/vendor/github.com/google/pprof"), []string{
		`if ($X != null) $X.dispose()`, `console.log($$$)`, `$A.addEventListener($E, $$$)`, `function $F($$$) { $$$ }`,
		`"$S"`, `'use strict'`, `this.$A = $A`, `$X === undefined`, `return $X;`, `$F($$$)`,
	}},
	{"typescript", repoDirs("testdata/workspaces"), []string{`export function $F($$$) { $$$ }`, `$A.$B($$$)`, `"$S"`}},
	{"rust", repoDirs("testdata/workspaces"), []string{`$A.unwrap()`, `fn $F($$$) -> $R { $$$ }`, `let $X = $Y;`, `"$S"`}},
	{"java", repoDirs("testdata/workspaces"), []string{`public $T $M($$$) { $$$ }`, `$A.$B($$$)`, `return $X;`}},
	{"cpp", repoDirs("testdata/workspaces"), []string{`$A::$B($$$)`, `return $X;`, `#include "$H"`}},
}

func gorootDirs(rels ...string) func(testing.TB) []string {
	return func(tb testing.TB) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join(wstest.GoSrc(tb), r))
		}
		return out
	}
}

func pythonDirs(rels ...string) func(testing.TB) []string {
	return func(tb testing.TB) []string {
		out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_path("stdlib"))`).Output()
		wstest.RequirePeer(tb, fmt.Sprintf("python3 (%v), whose standard library is a corpus: apt-get install python3", err), err == nil)
		var dirs []string
		for _, r := range rels {
			dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), r))
		}
		return dirs
	}
}

func repoDirs(rels ...string) func(testing.TB) []string {
	return func(testing.TB) []string {
		var out []string
		for _, r := range rels {
			out = append(out, filepath.Join("..", r))
		}
		return out
	}
}

// The prefilter never refuses a file that matches, and finding candidates
// from where the pattern's tokens occur finds the same matches as visiting
// every node. Every pattern is matched on every file, whatever MayMatch
// says.
func TestPrefilterAndAnchorsAreSound(t *testing.T) {
	if testing.Short() {
		t.Skip("parses real source trees")
	}
	for _, s := range soundness {
		t.Run(s.language, func(t *testing.T) {
			language := syntax.LanguageByName(s.language)
			var patterns []*Pattern
			for _, src := range s.patterns {
				p, err := Compile(context.Background(), src, language)
				if err != nil {
					t.Fatalf("Compile(%q): %v", src, err)
				}
				defer p.Close()
				patterns = append(patterns, p)
			}
			var files []file
			for _, d := range s.dirs(t) {
				files = append(files, corpus(t, d, s.language)...)
			}
			found := make([]int, len(patterns))
			refused := make([]int, len(patterns))
			for _, f := range files {
				tree, err := syntax.ParseOnce(context.Background(), language, f.src)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range patterns {
					got := matchOf(t, p, tree.RootNode(), f.src)
					all := everyCandidate(t, p, tree.RootNode(), f.src)
					if !sameMatches(got, all) {
						t.Errorf("%s in %s: anchored search found %d matches, every node %d", p.Source, f.rel, len(got), len(all))
					}
					if !p.MayMatch(f.src) {
						refused[i]++
						if len(all) > 0 {
							t.Errorf("%s: MayMatch refused %s, which has %d matches (first at %d:%d)", p.Source, f.rel, len(all), all[0].StartLine, all[0].StartCol)
						}
					}
					found[i] += len(all)
				}
				tree.Release()
			}
			for i, p := range patterns {
				t.Logf("%-45s %5d matches, %4d of %d files refused", p.Source, found[i], refused[i], len(files))
			}
		})
	}
}

func sameMatches(a, b []Match) bool {
	return slices.EqualFunc(a, b, func(x, y Match) bool {
		return x.StartByte == y.StartByte && x.EndByte == y.EndByte && slices.Equal(x.Captures, y.Captures)
	})
}

// The grammar tables agree with tree-sitter's own answers for every node
// of real files.
func TestGrammarTablesAgreeWithNodes(t *testing.T) {
	for _, c := range []struct{ language, dir string }{
		{"go", filepath.Join(wstest.GoSrc(t), "net", "http")},
		{"c", filepath.Join(wstest.GoSrc(t), "runtime", "cgo")},
	} {
		language := syntax.LanguageByName(c.language)
		g := grammarOf(language.Grammar)
		for _, f := range corpus(t, c.dir, c.language)[:20] {
			tree, err := syntax.ParseOnce(context.Background(), language, f.src)
			if err != nil {
				t.Fatal(err)
			}
			var walk func(n *sitter.Node)
			walk = func(n *sitter.Node) {
				if k := g.kind(n); k.name != n.Type() || k.named != n.IsNamed() {
					t.Fatalf("%s: table says %q named=%v, node says %q named=%v", f.rel, k.name, k.named, n.Type(), n.IsNamed())
				}
				for i := 0; i < int(n.ChildCount()); i++ {
					walk(n.Child(i))
				}
			}
			walk(tree.RootNode())
			tree.Release()
		}
	}
}
