package codegraph

import (
	"fmt"
	"strings"
	"testing"
)

// A blast's text for the CLI (Text) lists every definition reached; for a
// model (TextWithin) the counts come first, the nearest entries that fit,
// and the call that lists the rest, which pages through all of them.
func TestGraphTextWithinPagesABlast(t *testing.T) {
	r := &Answer{Op: "blast", Query: Query{Op: "blast", Name: "Target", Depth: 2},
		Definitions: []Def{{Name: "Target", Kind: "func", Path: "a/a.go", Start: 3, End: 3}},
		Counts:      map[string]int{"exact": 320}}
	for i := 0; i < 320; i++ {
		d := 1
		if i >= 300 {
			d = 2
		}
		r.Reached = append(r.Reached, Reached{Distance: d, Confidence: "exact", Via: []string{"Target", fmt.Sprintf("C%03d", i)},
			Def: Def{Name: fmt.Sprintf("C%03d", i), Kind: "func", Path: fmt.Sprintf("p%d/f.go", i%7), Start: i + 1, End: i + 1, Test: i%100 == 0}})
	}
	all := r.Text()
	if n := strings.Count(all, "\tC"); n != 320 || strings.Contains(all, "[showing") {
		t.Fatalf("Text lists %d of 320:\n%s", n, all)
	}
	if !strings.HasPrefix(all, "blast radius of Target: 320 definition(s) (300 at distance 1, 20 at distance 2) in 7 files, 4 tests — 320 exact\nby directory: p0 46, p1 46, ") {
		t.Errorf("the totals:\n%.400s", all)
	}
	seen := map[string]bool{}
	for page := 0; page < 20; page++ {
		text := r.TextWithin(7000)
		if len(text) > 7000 {
			t.Fatalf("page %d: %d bytes", page, len(text))
		}
		for _, line := range strings.Split(text, "\n") {
			if f := strings.Fields(line); strings.HasPrefix(line, "  ") && len(f) > 1 && strings.HasPrefix(f[1], "C") {
				if seen[f[1]] {
					t.Fatalf("%s listed twice", f[1])
				}
				seen[f[1]] = true
			}
		}
		i := strings.Index(text, ": graph op=blast name=Target depth=2 offset=")
		if i < 0 {
			break
		}
		fmt.Sscanf(text[i+len(": graph op=blast name=Target depth=2 offset="):], "%d", &r.Query.Offset)
	}
	if len(seen) != 320 {
		t.Errorf("the pages list %d of 320", len(seen))
	}
}
