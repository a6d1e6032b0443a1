package structsearch

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cchub/syntax"
)

// looksCtx is a context that is cancelled at the after-th look at its Err:
// a cancel that arrives deep inside a compile, wherever the compile's time
// goes, without a timer.
type looksCtx struct {
	context.Context
	cancel context.CancelFunc
	looks  atomic.Int64
	after  int64
}

func (c *looksCtx) Err() error {
	if c.looks.Add(1) == c.after {
		c.cancel()
	}
	return c.Context.Err()
}

// A pattern within the nesting bound that takes long to compile (a chain
// of 20,000 additions took 11 s on a shared 2-core machine, as every
// node's metavariables were counted under each of its ancestors; about a
// second now) stops when its context is cancelled, wherever the compile
// is, returns the context's error in words, and leaves nothing running.
func TestCompileStopsWhenCancelled(t *testing.T) {
	pattern := "x" + strings.Repeat(" + $X", 20000)
	type cut struct {
		language string
		after    int64 // the look at the context that cancels it
	}
	var cuts []cut
	for _, language := range []string{"go", "python"} {
		// How often a whole compile looks (it is deterministic); then cut
		// it early (reading the pattern), midway, and at its last look.
		lc := &looksCtx{Context: context.Background(), cancel: func() {}}
		p, err := Compile(lc, pattern, syntax.LanguageByName(language))
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		n := lc.looks.Load()
		t.Logf("%s: %d looks at the context", language, n)
		cuts = append(cuts, cut{language, 5}, cut{language, n / 2}, cut{language, n - 1})
	}
	for _, c := range cuts {
		language := c.language
		t.Run(fmt.Sprintf("%s/%d", language, c.after), func(t *testing.T) {
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lc := &looksCtx{Context: ctx, cancel: cancel, after: c.after}
			p, err := Compile(lc, pattern, syntax.LanguageByName(language))
			if err == nil {
				p.Close()
				t.Fatalf("Compile ran to its end, %d looks at its context, after it was cancelled at look %d", lc.looks.Load(), c.after)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Compile = %v, want an error wrapping context.Canceled", err)
			}
			for _, w := range []string{"compiling the pattern (", "was stopped: context canceled", "give the shape of the code"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			// Nothing it started goes on: the goroutines are back to what
			// they were (go-tree-sitter's watcher of a parse's context
			// ends with the parse). Waiting for that is not timing it.
			for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > base; {
				if time.Now().After(deadline) {
					buf := make([]byte, 1<<16)
					t.Fatalf("%d goroutines, %d before the compile:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	// A context already done stops a compile before it parses.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compile(ctx, `f($X)`, syntax.LanguageByName("go")); !errors.Is(err, context.Canceled) {
		t.Errorf("Compile with a cancelled context = %v", err)
	}
	// And so does a search, whatever languages it compiles for.
	root := writeTree(t, map[string]string{"a.go": "package p\n\nvar x = f(1)\n"})
	if _, err := Search(ctx, root, Options{Pattern: `f($X)`}); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context = %v", err)
	}
}

// freeByCounting is markFree as it was, counting each name under every
// node: the oracle of the linear walk.
func freeByCounting(root *pnode) map[*pnode][]bool {
	counts := func(n *pnode, into map[string]int) map[string]int {
		var walk func(n *pnode)
		walk = func(n *pnode) {
			if n.meta != "" && n.meta != "_" {
				into[n.meta]++
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(n)
		return into
	}
	total := counts(root, map[string]int{})
	out := map[*pnode][]bool{}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if len(n.kids) == 0 {
			return
		}
		free := make([]bool, len(n.kids))
		suffix := map[string]int{}
		for i := len(n.kids) - 1; i >= 0; i-- {
			counts(n.kids[i], suffix)
			free[i] = true
			for name, c := range suffix {
				if c != total[name] {
					free[i] = false
					break
				}
			}
		}
		out[n] = free
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
	return out
}

// The linear markFree marks what counting did, node by node.
func TestMarkFreeAgreesWithCounting(t *testing.T) {
	for _, c := range []struct{ language, pattern string }{
		{"go", `if $X != nil { return $X }`},
		{"go", `$A + $B + $A`},
		{"go", `f($$$ARGS, $X, $$$ARGS)`},
		{"go", "$X := $Y\nif $X {\n\t$$$\n}\nreturn $Y"},
		{"go", `$F($X, g($X), $Y)`},
		{"python", `$A = $B; $B = $A`},
		{"python", `[$X for $X in $Y if $Z]`},
		{"python", "def $F($$$P):\n    $$$\n    return $R"},
		{"javascript", `$O.on($E, function ($A) { $$$; $O.off($E) })`},
		{"rust", `match $X { $P => $E, _ => $E }`},
		{"java", `for ($T $I : $C) { $C.remove($I); }`},
		{"c", `memcpy($D, $S, sizeof($D))`},
		{"go", "x" + strings.Repeat(" + $X + $Y", 50)},
	} {
		p, err := Compile(context.Background(), c.pattern, syntax.LanguageByName(c.language))
		if err != nil {
			t.Fatalf("%s %q: %v", c.language, c.pattern, err)
		}
		want := freeByCounting(p.root)
		var walk func(n *pnode)
		walk = func(n *pnode) {
			if w, ok := want[n]; ok && fmt.Sprint(w) != fmt.Sprint(n.free) {
				t.Errorf("%s %q: node %s: free %v, counting says %v", c.language, c.pattern, n.kind, n.free, w)
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(p.root)
		p.Close()
	}
}
