package lspmux

import (
	"os"
	"strings"
	"testing"

	"cchub/textfmt"
)

// A place is checked against the file as it is and as the asker read it,
// with no server: the bundled workspace's pricing.go, read, then given
// two lines at its top by the shell.
func TestPlaceCheck(t *testing.T) {
	data, err := os.ReadFile("../testdata/workspaces/go/pricing/pricing.go")
	if err != nil {
		t.Fatal(err)
	}
	read := textfmt.SplitLines(string(data))
	now := textfmt.SplitLines(strings.Replace(string(data), "package pricing\n", "package pricing\n\n// Two lines the shell added.\n", 1))
	declares := func(name string) int {
		for i, l := range now {
			if strings.HasPrefix(l, "func "+name+"(") {
				return i + 1
			}
		}
		return 0
	}
	q := Query{Op: "references", Path: "pricing/pricing.go", Line: 24, Col: 6}
	for _, tc := range []struct {
		what string
		p    Place
		note string // "": no note
		err  string // "": asked
	}{
		{"a place the asker read, moved since", Place{Query: q, ColGiven: true, Lines: now, Changed: true, LinesRead: read, SymbolLine: declares},
			"", "line 24 was `func Cents(n int64) Money { return Money(n) }` and is now blank; the name read at 24:6 was `Cents`, now at pricing/pricing.go:26:6: `func Cents(n int64) Money { return Money(n) }`. Ask: lsp op=references path=pricing/pricing.go line=26 column=6, or lsp op=references path=pricing/pricing.go symbol=Cents"},
		{"the same place once told where things are now", Place{Query: Query{Op: "references", Path: q.Path, Line: 26, Col: 6}, ColGiven: true, Lines: now, Changed: true, LinesRead: read, Told: true},
			"this answer is about `Cents` at pricing/pricing.go:26:6 as the file is now", ""},
		{"a blank of a file as read", Place{Query: Query{Op: "definition", Path: q.Path, Line: 24, Col: 5}, ColGiven: true, Lines: read},
			"", "no name at pricing/pricing.go:24:5, on a blank of line 24: `func Cents(n int64) Money { return Money(n) }`; the names on it: Cents (column 6), n (column 12), int64 (column 14), Money (column 21), Money (column 36), n (column 42). The nearest: lsp op=definition path=pricing/pricing.go line=24 column=6"},
		{"a line past the end", Place{Query: Query{Op: "hover", Path: q.Path, Line: 999, Col: 1}, Lines: read},
			"", "line 999 is past the end of pricing/pricing.go, which has "},
		{"a name", Place{Query: q, ColGiven: true, Lines: read}, "", ""},
	} {
		note, err := tc.p.Check()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.what, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v\nwant it to hold %q", tc.what, err, tc.err)
		case tc.note == "" && note != "" || !strings.Contains(note, tc.note):
			t.Errorf("%s: note %q, want %q", tc.what, note, tc.note)
		}
	}
}
