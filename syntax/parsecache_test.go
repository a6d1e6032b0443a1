package syntax

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func goSource(n int) []byte {
	return []byte(fmt.Sprintf("package p\n\nfunc F%d() int { return %d }\n", n, n))
}

func TestParseCacheHitReturnsTheSameTree(t *testing.T) {
	c := NewParseCache(0)
	defer c.Close()
	lang := LanguageByName("go")
	src := goSource(1)
	t1, err := c.Parse(context.Background(), "a.go", lang, src)
	if err != nil {
		t.Fatal(err)
	}
	first := t1.Tree
	t1.Release()
	t1.Release() // a second release is harmless
	t2, err := c.Parse(context.Background(), "a.go", lang, append([]byte(nil), src...))
	if err != nil {
		t.Fatal(err)
	}
	defer t2.Release()
	if t2.Tree != first {
		t.Fatal("same path and content parsed twice: cache missed")
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 1 || s.Trees != 1 {
		t.Fatalf("stats = %+v, want 1 hit, 1 miss, 1 tree", s)
	}
	if got := t2.RootNode().NamedChild(1).Type(); got != "function_declaration" {
		t.Fatalf("second child = %s, want function_declaration", got)
	}
}

func TestParseCacheNewContentReplacesOldVersion(t *testing.T) {
	c := NewParseCache(0)
	defer c.Close()
	lang := LanguageByName("go")
	for i := 0; i < 5; i++ {
		tr, err := c.Parse(context.Background(), "a.go", lang, goSource(i))
		if err != nil {
			t.Fatal(err)
		}
		tr.Release()
	}
	if s := c.Stats(); s.Trees != 1 || s.Misses != 5 {
		t.Fatalf("stats = %+v: old versions of a.go are kept", s)
	}
}

func TestParseCacheEvictsPastItsBoundButNotWhatIsHeld(t *testing.T) {
	src := goSource(0)
	c := NewParseCache(3 * len(src))
	defer c.Close()
	lang := LanguageByName("go")
	held, err := c.Parse(context.Background(), "held.go", lang, src)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		tr, err := c.Parse(context.Background(), fmt.Sprintf("f%d.go", i), lang, goSource(i))
		if err != nil {
			t.Fatal(err)
		}
		tr.Release()
	}
	s := c.Stats()
	if s.Bytes > 3*len(src) || s.Trees > 3 {
		t.Fatalf("stats = %+v, bound is 3 files", s)
	}
	// The held tree was evicted but must still be alive until released.
	if got := held.RootNode().Type(); got != "source_file" {
		t.Fatalf("held tree root = %q after eviction", got)
	}
	e := held.e
	held.Release()
	if !e.evicted || e.refs != 0 {
		t.Fatalf("held entry after release: evicted=%v refs=%d", e.evicted, e.refs)
	}
}

func TestParseCacheConcurrentHoldersOfOneFile(t *testing.T) {
	c := NewParseCache(0)
	defer c.Close()
	lang := LanguageByName("go")
	// A file of a few hundred declarations, so walking it takes a while.
	var b strings.Builder
	b.WriteString("package p\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "func F%d(x int) int { if x > %d { return x } ; return %d }\n", i, i, i)
	}
	src := []byte(b.String())
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				tr, err := c.Parse(context.Background(), "print.go", lang, src)
				if err != nil {
					errs <- err
					return
				}
				// Walking the tree touches its node cache: holders must
				// have it to themselves.
				n := int(tr.RootNode().NamedChildCount())
				for j := 0; j < n; j++ {
					_ = tr.RootNode().NamedChild(j).Type()
				}
				tr.Release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Trees != 1 || s.Misses > 16 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestParseCacheSyntaxErrorsStillParse(t *testing.T) {
	c := NewParseCache(0)
	defer c.Close()
	tr, err := c.ParseUncached(context.Background(), LanguageByName("python"), []byte("def f(:\n  pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Release()
	if !tr.RootNode().HasError() {
		t.Fatal("broken python parsed without an error node")
	}
}

// A parse whose context is cancelled after it returned must not poison the
// pooled parser for the parses after it (go-tree-sitter arms a parser's
// cancel flag from a goroutine that can fire late).
func TestParseAfterCancelledContextStillParses(t *testing.T) {
	lang := LanguageByName("go")
	for i := 0; i < 300; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		tr, err := ParseOnce(ctx, lang, goSource(i))
		cancel()
		if err != nil {
			t.Fatalf("parse %d: %v", i, err)
		}
		tr.Release()
		tr, err = ParseOnce(context.Background(), lang, goSource(i))
		if err != nil {
			t.Fatalf("parse %d after a cancelled one: %v", i, err)
		}
		tr.Release()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ParseOnce(ctx, lang, goSource(0)); err == nil {
		t.Fatal("a parse under a cancelled context went ahead")
	}
}

// A pass larger than the cache, repeated, finds the part that fit: plain
// LRU would have evicted every tree in turn and found none.
func TestScanLargerThanTheCacheKeepsWhatFits(t *testing.T) {
	src := goSource(0)
	c := NewParseCache(3 * len(src))
	defer c.Close()
	lang := LanguageByName("go")
	pass := func() {
		s := c.NewScan()
		for i := 0; i < 5; i++ {
			tr, err := s.Parse(context.Background(), fmt.Sprintf("f%d.go", i), lang, goSource(i%10))
			if err != nil {
				t.Fatal(err)
			}
			tr.Release()
		}
	}
	pass()
	if st := c.Stats(); st.Trees != 3 || st.Misses != 5 {
		t.Fatalf("after one pass: %+v, want 3 trees kept of 5 parsed", st)
	}
	pass()
	if st := c.Stats(); st.Hits != 3 || st.Trees != 3 {
		t.Fatalf("after the same pass again: %+v, want 3 hits", st)
	}
	// Outside a scan, LRU as before: a new file evicts the oldest.
	tr, err := c.Parse(context.Background(), "new.go", lang, goSource(7))
	if err != nil {
		t.Fatal(err)
	}
	tr.Release()
	if st := c.Stats(); st.Trees != 3 || st.Bytes > 3*len(src) {
		t.Fatalf("after a plain parse: %+v", st)
	}
}
