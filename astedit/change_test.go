package astedit

import "testing"

// A staged file's counts are its diff's lines, whatever they hold: a
// removed "-- x" reads "--- x" in the diff and is still a removed line.
func TestFileDiffCounts(t *testing.T) {
	for _, tc := range []struct {
		name           string
		old, new       string
		added, removed int
	}{
		{"a SQL comment removed, a ++ line added", "-- old comment\nselect 1;\n", "++i;\nselect 1;\n", 1, 1},
		{"a line changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"lines added at the end without a newline", "a\n", "a\nb\nc", 2, 0},
	} {
		_, added, removed, err := fileDiff(FileEdit{Path: "q.sql", Old: []byte(tc.old), New: []byte(tc.new)})
		if err != nil {
			t.Fatal(err)
		}
		if added != tc.added || removed != tc.removed {
			t.Errorf("%s: +%d -%d, want +%d -%d", tc.name, added, removed, tc.added, tc.removed)
		}
	}
}
