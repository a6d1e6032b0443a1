package locate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// A file larger than the worker's buffer is matched a buffer at a time,
// in pieces that end at line breaks: every line is found once, with its own number, whether the
// pattern is a literal, anchored at either end, or left to the DFA.
func TestGrepAcrossSearchChunks(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	want := 0
	for i := 1; b.Len() < 3*grepReadSize+100; i++ {
		if i%997 == 0 {
			fmt.Fprintf(&b, "hit %d end\n", i)
			want++
		} else {
			fmt.Fprintf(&b, "filler line %d of text\n", i)
		}
	}
	b.WriteString("hit last end") // no final newline
	want++
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	lines := strings.Split(b.String(), "\n")
	for _, pat := range []string{"hit", "^hit", "end$", `h[i]t \w+ end`} {
		res, err := Grep(context.Background(), root, GrepOptions{Pattern: pat, Path: "big.txt", Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != want || len(res.Matches) != want {
			t.Errorf("%s: %d matches (%d kept), want %d", pat, res.Total, len(res.Matches), want)
		}
		for _, m := range res.Matches {
			if lines[m.Line-1] != m.Text {
				t.Errorf("%s: line %d is %q, match says %q", pat, m.Line, lines[m.Line-1], m.Text)
				break
			}
		}
	}
}

// A grep whose context is cancelled stops matching within a chunk, for a
// single file as for a tree, and says it was cancelled.
func TestGrepCancelledStopsInsideAFile(t *testing.T) {
	dir := t.TempDir()
	data := strings.Repeat("needle\n", 4*grepReadSize/7)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := root.OpenRead("big.txt", MaxGrepFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	w := newGrepWorker(mustMatcher(t, "needle"), 10)
	if err := w.search(ctx, 0, "big.txt", &o); !errors.Is(err, context.Canceled) || w.total != 0 {
		t.Errorf("a cancelled search: %v, %d matches counted; want context.Canceled before it started", err, w.total)
	}
	if _, err := Grep(ctx, root, GrepOptions{Pattern: "needle", Path: "big.txt"}); !errors.Is(err, context.Canceled) {
		t.Errorf("grep of one file with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func mustMatcher(t testing.TB, pat string) *lineMatcher {
	t.Helper()
	m, err := compileMatcher(pat, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
