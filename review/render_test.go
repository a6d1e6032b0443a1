package review

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// twoHunks is a small change with two hunks, an insertion that shifts
// the new numbers of the second hunk by one, a tab, and a new last line
// without a newline.
func twoHunks() Change {
	old := "one\ntwo\nthree\n\tfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n"
	new := "one\nTWO\n2b\nthree\n\tfour\nfive\nsix\nseven\neight\nnine\nten\nELEVEN\ntwelve"
	return Change{
		ID:      "c1",
		Title:   "rewrite `two` → `TWO`",
		Matches: 2,
		Files: []File{{
			Path:    "x.txt",
			Diff:    udiff.Unified("a/x.txt", "b/x.txt", old, new),
			Added:   4,
			Removed: 3,
			Status:  "modified",
		}},
	}
}

func TestRenderExact(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, twoHunks(), false, 0); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"rewrite `two` → `TWO`\n" +
		"change c1 · 2 changes in 1 file · +4 −3\n" +
		"\n" +
		"── x.txt (+4 −3) ──\n" +
		"@@ -1,5 +1,6 @@\n" +
		" 1  1 │  one\n" +
		" 2    │ -two\n" +
		"    2 │ +TWO\n" +
		"    3 │ +2b\n" +
		" 3  4 │  three\n" +
		" 4  5 │      four\n" +
		" 5  6 │  five\n" +
		"@@ -8,5 +9,5 @@\n" +
		" 8  9 │  eight\n" +
		" 9 10 │  nine\n" +
		"10 11 │  ten\n" +
		"11    │ -eleven\n" +
		"12    │ -twelve\n" +
		"   12 │ +ELEVEN\n" +
		"   13 │ +twelve\n" +
		"      │ \\ No newline at end of file\n"
	if got := b.String(); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Error("Render without colour wrote an escape byte")
	}
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func TestRenderColour(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, twoHunks(), true, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		sgrRed + "-two" + sgrReset,
		sgrGreen + "+TWO" + sgrReset,
		sgrCyan + "@@ -8,5 +9,5 @@" + sgrReset,
		sgrBold + "── x.txt (+4 −3) ──" + sgrReset,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%q", want, out)
		}
	}
	// Colours change nothing but the colours.
	var plain strings.Builder
	Render(&plain, twoHunks(), false, 0)
	if got := sgr.ReplaceAllString(out, ""); got != plain.String() {
		t.Errorf("coloured output without its escapes differs from the plain one:\n%s", got)
	}
}

func TestRenderWidth(t *testing.T) {
	c := twoHunks()
	c.Files[0].Path = "a/very/long/directory/name/that/goes/on/x.txt"
	c.Files = append(c.Files, File{
		Path:   "wide.go",
		Status: "added",
		Diff:   udiff.Unified("a/wide.go", "b/wide.go", "", "\t\tx := \"→"+strings.Repeat("é", 60)+"\"\n\x1b[2Jboom\n"),
	})
	for _, color := range []bool{false, true} {
		for _, width := range []int{1, 2, 5, 12, 20, 40, 41} {
			var b strings.Builder
			if err := Render(&b, c, color, width); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				visible := sgr.ReplaceAllString(line, "")
				if n := utf8.RuneCountInString(visible); n > width {
					t.Errorf("color=%v width=%d: %d runes: %q", color, width, n, visible)
				}
				if strings.ContainsAny(visible, "\x1b\t\r") {
					t.Errorf("color=%v width=%d: control character on screen: %q", color, width, visible)
				}
			}
		}
	}
	var b strings.Builder
	Render(&b, c, false, 40)
	out := b.String()
	for _, want := range []string{
		"── …y/name/that/goes/on/x.txt (+4 −3) ──\n", // the end of a long path survives
		"── wide.go (added, +2 −0) ──\n",             // counted from the diff
		"@@ -0,0 +1,2 @@\n", // a new file
		"  1 │ +        x := \"→ééééééééééééééééé…\n", // tabs expanded, then cut at 40
		"  2 │ +\\x1b[2Jboom\n", // an escape in the code is shown, not obeyed
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestParseDiff(t *testing.T) {
	// A removed line "-- x" reads "--- x" and an added "++ y" reads
	// "+++ y": inside a hunk they are code, not file headers.
	diff := "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n--- x\n+++ y\n ctx\n"
	got := parseDiff(diff)
	want := []dline{
		{kind: kHunk, text: "@@ -3,2 +3,2 @@"},
		{kind: kDel, old: 3, text: "-- x"},
		{kind: kAdd, new: 3, text: "++ y"},
		{kind: kContext, old: 4, new: 4, text: "ctx"},
	}
	if len(got) != len(want) {
		t.Fatalf("parseDiff = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// Counts of 1 are left out of the header, and the last file line
	// of a deleted file has no newline.
	got = parseDiff(udiff.Unified("a/f", "b/f", "only", ""))
	if len(got) != 3 || got[0].text != "@@ -1 +0,0 @@" || got[1].kind != kDel || got[1].old != 1 || got[2].kind != kNoNewline {
		t.Errorf("deleted file: %+v", got)
	}
}

func TestRenderEmpty(t *testing.T) {
	var b strings.Builder
	Render(&b, Change{Files: []File{{Path: "bin.dat", Status: "modified"}}}, false, 0)
	want := "1 file · +0 −0\n\n── bin.dat (+0 −0) ──\n(no diff)\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// A CRLF file's line ends are not shown as \r; a CR inside a line is.
func TestRenderCRLF(t *testing.T) {
	diff := "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n-old\r\n+new\r\n same\rtail\r\n"
	var b strings.Builder
	if err := Render(&b, Change{ID: "c", Files: []File{{Path: "w.txt", Diff: diff}}}, false, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "-old\n") || !strings.Contains(out, "+new\n") || !strings.Contains(out, " same\\rtail\n") {
		t.Errorf("render:\n%q", out)
	}
}
