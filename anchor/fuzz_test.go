package anchor

import (
	"testing"
)

// FuzzAnchorDiff feeds untrusted diffs and quotes to the parser and the
// matcher: they may refuse, never panic, and a place found is always
// inside the region it came from.
func FuzzAnchorDiff(f *testing.F) {
	f.Add("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,3 @@\n a\n+b\n c\n", "+b\n c")
	f.Add("--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+x\n", "x")
	f.Add("@@ -1 +1 @@\n-a\n+b\n", "b")
	f.Fuzz(func(t *testing.T, diff, quote string) {
		files, err := parseDiff([]byte(diff))
		if err != nil {
			return
		}
		q := quoteLines(quote)
		for _, df := range files {
			for _, p := range find(q, df.regions) {
				if p.end-p.start+1 != len(q) || len(p.lines) != len(q) {
					t.Fatalf("place %+v for a %d-line quote", p, len(q))
				}
			}
		}
	})
}
