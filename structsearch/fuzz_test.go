package structsearch

import (
	"context"
	"strings"
	"testing"

	"cchub/syntax"
)

// fuzzLangs are the languages the fuzz targets compile for, each with a
// small file to match against.
var fuzzLangs = []struct{ name, src string }{
	{"go", goGuards},
	{"python", pySrc},
	{"javascript", jsSrc},
	{"rust", rustSrc},
	{"go", goSeqSrc},
	{"c", cSeqSrc},
	{"java", javaSeqSrc},
	{"python", pySeqSrc},
}

var fuzzSeeds = []string{
	`if $X != nil { return $X }`, `fmt.Println($$$ARGS)`, `$A.Lock()`, `$X`, `$$$`, `$_`, `"$S"`,
	`print($A)`, `self.$A = $A`, `if $X is None: return $X`, `{ a: $X }`, `if ($X != null) $X.dispose()`,
	`match $X { $$$ }`, `$A.unwrap()`, `class $C { $$$ }`, `func ($R *$T) $M($$$) $$$R { $$$ }`,
	`$x`, `obj.on$EVENT`, `foo(`, `)`, `$`, `$$`, `$$$$`, `$A$B`, "µ", "", "\x00", `"unterminated`, `/*`, `//`,
	"if $X:\n\treturn $X\n  else", `case $X:`, `import $I`, `#include <$H>`, `$1`, `${X}`, `$X.$Y.$Z()`,
	// Sequences of statements.
	"$A.mu.Lock()\ndefer $A.mu.Unlock()", "$A.Lock()\n$$$\n$A.Unlock()", "$$$B\nreturn $X", "defer $A.mu.Unlock()\n$$$R",
	"$_\n$_", "$$$A\n$$$B", "a(); b()", "free($P);\n$$$\n$P = NULL;", "$L.acquire()\ntry:\n    $$$\nfinally:\n    $L.release()",
	"    x = 1\n    y = 2", "x = 1\n    y = 2", "case 1:\n\t$$$\ncase 2:\n\t$$$", "$$$;\n$X;", "let $G = $M.lock().unwrap();\n*$G",
	"$L.lock();\n$$$\n$L.unlock();", "#include <stdlib.h>\n#include $H", "}\n{", "$X\n\n// c\n$Y",
}

// FuzzCompile: any pattern in any language compiles or fails with an
// error, never panics; a compiled pattern describes itself and matches a
// real tree without panicking.
func FuzzCompile(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, uint8(i))
	}
	type tree struct {
		language *syntax.Language
		t        *syntax.Tree
	}
	var trees []tree
	for _, l := range fuzzLangs {
		language := syntax.LanguageByName(l.name)
		t, err := syntax.ParseOnce(context.Background(), language, []byte(l.src))
		if err != nil {
			f.Fatal(err)
		}
		trees = append(trees, tree{language, t})
	}
	f.Cleanup(func() {
		for _, t := range trees {
			t.t.Release()
		}
	})
	f.Fuzz(func(t *testing.T, pattern string, which uint8) {
		tr := trees[int(which)%len(trees)]
		p, err := Compile(context.Background(), pattern, tr.language)
		if err != nil {
			if !strings.Contains(err.Error(), "bad pattern") {
				t.Fatalf("Compile(%q, %s): an error that is not ErrBadPattern: %v", pattern, tr.language.Name, err)
			}
			return
		}
		defer p.Close()
		if p.String() == "" {
			t.Fatalf("Compile(%q, %s): empty String()", pattern, tr.language.Name)
		}
		src := tr.t.Source
		ms := matchOf(t, p, tr.t.RootNode(), src)
		if len(ms) > 0 && !p.MayMatch(src) {
			t.Fatalf("Compile(%q, %s): %d matches in a source MayMatch refuses", pattern, tr.language.Name, len(ms))
		}
		for i, m := range ms {
			if m.StartByte < 0 || m.EndByte > len(src) || m.StartByte > m.EndByte || m.StartLine < 1 || m.StartCol < 1 {
				t.Fatalf("Compile(%q, %s): a match out of range: %+v", pattern, tr.language.Name, m)
			}
			// Matches come in document order; those of a sequence are
			// disjoint or one inside a statement of the other, never
			// the same run twice or two runs that cross.
			if i > 0 && m.StartByte < ms[i-1].StartByte {
				t.Fatalf("Compile(%q, %s): matches out of order: %d after %d", pattern, tr.language.Name, m.StartByte, ms[i-1].StartByte)
			}
			if p.seq {
				for _, o := range ms[:i] {
					if m.StartByte == o.StartByte && m.EndByte == o.EndByte || m.StartByte < o.EndByte && m.EndByte > o.EndByte {
						t.Fatalf("Compile(%q, %s): runs %d-%d and %d-%d overlap", pattern, tr.language.Name, o.StartByte, o.EndByte, m.StartByte, m.EndByte)
					}
				}
			}
		}
		if all := everyCandidate(t, p, tr.t.RootNode(), src); !sameMatches(ms, all) {
			t.Fatalf("Compile(%q, %s): anchored search found %d matches, every candidate %d", pattern, tr.language.Name, len(ms), len(all))
		}
	})
}

// FuzzPatternLines: the line rewrites a pattern goes through before it is
// parsed only take away shared indentation (dedent) or end a line that is
// one $$$ with a `;` (terminateGaps): the lines stay the same lines.
func FuzzPatternLines(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := dedent(s)
		in, out := strings.Split(s, "\n"), strings.Split(d, "\n")
		if len(in) != len(out) {
			t.Fatalf("dedent(%q) = %q: %d lines, want %d", s, d, len(out), len(in))
		}
		cut := -1
		for i := range in {
			if !strings.HasSuffix(in[i], out[i]) || strings.TrimSpace(in[i]) != strings.TrimSpace(out[i]) {
				t.Fatalf("dedent(%q): line %d %q became %q", s, i+1, in[i], out[i])
			}
			if strings.TrimSpace(in[i]) == "" {
				continue
			}
			if n := len(in[i]) - len(out[i]); cut < 0 {
				cut = n
			} else if n != cut {
				t.Fatalf("dedent(%q): lines lost %d and %d characters", s, cut, n)
			}
		}
		if strings.Contains(s, expando) {
			return
		}
		frag, err := rewriteMetas(newSteps(context.Background()), s)
		if err != nil {
			return
		}
		for _, language := range syntax.LanguageNames() {
			g := terminateGaps(frag, language)
			in, out := strings.Split(frag, "\n"), strings.Split(g, "\n")
			if len(in) != len(out) {
				t.Fatalf("terminateGaps(%q, %s) = %q: %d lines, want %d", frag, language, g, len(out), len(in))
			}
			for i := range in {
				if out[i] != in[i] && strings.Replace(out[i], ";", "", 1) != in[i] {
					t.Fatalf("terminateGaps(%q, %s): line %d %q became %q", frag, language, i+1, in[i], out[i])
				}
			}
		}
	})
}

// FuzzRewriteMetas: rewriting metavariables for the parser only ever
// swaps '$' for the stand-in, so the pattern reads back unchanged.
func FuzzRewriteMetas(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, expando) {
			return
		}
		out, err := rewriteMetas(newSteps(context.Background()), s)
		if err != nil {
			return
		}
		if back := strings.ReplaceAll(out, expando, "$"); back != s {
			t.Fatalf("rewriteMetas(%q) = %q, which reads back as %q", s, out, back)
		}
	})
}

// FuzzPrefilter: on any Go source, the prefilter never refuses a source
// that matches, and anchored candidates find what visiting every node
// finds.
func FuzzPrefilter(f *testing.F) {
	f.Add(goGuards)
	f.Add(goCalls)
	f.Add(goMisc)
	f.Add("package p\nfunc f() { if x != nil /* c */ { return x } ; a.Lock( ) }\n")
	f.Add("package p\nvar s = \"if x != nil { return x }\" + `a.Lock()`\n")
	f.Add("package p\nfunc f() { a.Lock() /* c */ ; defer a.Unlock(); b.Lock(); x(); b.Unlock(); return x }\n")
	f.Add("package p\nfunc f() { if diff != nil { return nil, diff }; if m[\"//\"] /* c */ != nil { return m[ \"//\" ] } }\n")
	f.Add("package p\nvar ok = len(a /* ) */) == len(a) || len(g(x,\n y)) == len(g(x, y,))\n")
	language := syntax.LanguageByName("go")
	var patterns []*Pattern
	for _, src := range []string{`if $X != nil { return $X }`, `$A.Lock()`, `fmt.Println($$$)`, `os.Getenv("HOME")`, `"$S"`, `$X = $X + $Y`, `$F($$$)`, `len($X) == len($X)`, `if $X == nil { $X = $Y }`,
		"$A.Lock()\ndefer $A.Unlock()", "$A.Lock()\n$$$\n$A.Unlock()", "$$$\nreturn x"} {
		p, err := Compile(context.Background(), src, language)
		if err != nil {
			f.Fatal(err)
		}
		patterns = append(patterns, p)
	}
	f.Cleanup(func() {
		for _, p := range patterns {
			p.Close()
		}
	})
	f.Fuzz(func(t *testing.T, src string) {
		tree, err := syntax.ParseOnce(context.Background(), language, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		defer tree.Release()
		for _, p := range patterns {
			got := matchOf(t, p, tree.RootNode(), tree.Source)
			all := everyCandidate(t, p, tree.RootNode(), tree.Source)
			if !sameMatches(got, all) {
				t.Fatalf("%s: anchored search found %d matches, every node %d, in %q", p.Source, len(got), len(all), src)
			}
			if len(all) > 0 && !p.MayMatch(tree.Source) {
				t.Fatalf("%s: MayMatch refused %q, which matches", p.Source, src)
			}
		}
	})
}
