package structsearch

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A result holds the lines of its matches, not the files they are in: 100
// files of 50 KB with one short match each leave a result of a few
// kilobytes live, not 5 MB. A match on a line longer than a match may
// copy shares its file's text, so hostile files stay bounded (see
// TestHostileFilesStaySmall).
func TestAResultHoldsItsMatchesLinesNotTheirFiles(t *testing.T) {
	files := map[string]string{}
	filler := strings.Repeat("x = 1\n", 25<<10/6)
	for i := 0; i < 100; i++ {
		files[fmt.Sprintf("m%03d.py", i)] = filler + fmt.Sprintf("isinstance(v%d, str)\n", i) + filler
	}
	root := writeTree(t, files)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Search(context.Background(), root, Options{Pattern: "isinstance($X, $T)", Lang: "python"})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(res.Matches) != 100 || res.Matches[7].Text != "isinstance(v7, str)" || res.Matches[7].Captures[0].Text != "v7" {
		t.Fatalf("%d matches; the eighth: %+v", len(res.Matches), res.Matches[min(7, len(res.Matches)-1)])
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 1<<20 {
		t.Errorf("the result of 100 one-line matches keeps %d KB live; the files are 5 MB, their matched lines 2 KB", grown>>10)
	}
	runtime.KeepAlive(res)
}

// The matches on one line share one copy of it: 100 lines of 1.3 KB with
// 250 matches each keep the matches and the lines' 125 KB live, not a copy
// of its line per match (35 MB).
func TestMatchesOnOneLineShareItsCopy(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		b.WriteString("t = (" + strings.Repeat("a.b, ", 250) + ")\n")
	}
	root := writeTree(t, map[string]string{"many.py": b.String()})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Search(context.Background(), root, Options{Pattern: "$X.b", Lang: "python"})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(res.Matches) != 25000 || res.Matches[0].Text != "a.b" || !strings.HasPrefix(res.Matches[0].suffix, ", a.b") {
		t.Fatalf("%d matches; the first: %+v", len(res.Matches), res.Matches[0])
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("25,000 matches on 100 lines of 1.3 KB keep %d KB live; the lines are 125 KB", grown>>10)
	}
	runtime.KeepAlive(res)
}
