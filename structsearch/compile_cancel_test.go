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
// of 20,000 additions: 11 s on a shared 2-core machine, as every node's
// metavariables were counted under each of its ancestors) stops when its
// context is cancelled, returns the context's error in words, and leaves
// nothing running.
func TestCompileStopsWhenCancelled(t *testing.T) {
	pattern := "x" + strings.Repeat(" + $X", 20000)
	for _, c := range []struct {
		lang  string
		after int64 // the look that cancels: early (reading the pattern), in its parses, deep in its walks
	}{{"go", 5}, {"go", 40}, {"go", 2000}, {"python", 40}, {"python", 2000}} {
		lang := c.lang
		t.Run(fmt.Sprintf("%s/%d", lang, c.after), func(t *testing.T) {
			base := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			lc := &looksCtx{Context: ctx, cancel: cancel, after: c.after}
			p, err := Compile(lc, pattern, syntax.LanguageByName(lang))
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
