package textedit

import (
	"fmt"
	"strings"
	"testing"
)

// hugeCase is an edit of a 3,000-line old_string in a 500,000-line file,
// in the forms a security probe found taking a minute or more (every line
// alike, so that every window of the file is nearly old_string), and in
// forms of real edits of that size, which must still land.
type hugeCase struct {
	name, body, old string
	// at is the 1-based line where the edit lands; 0: it is refused as
	// too large.
	at int
}

const hugeFileLines, hugeOldLines = 500_000, 3_000

// uniqueCode is lines first..first+n-1 of a file whose every line differs.
func uniqueCode(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, "\tv%d := f(%d)\n", i, i)
	}
	return b.String()
}

func hugeCases() []hugeCase {
	same := strings.Repeat("x\n", hugeFileLines)
	code := uniqueCode(0, hugeFileLines)
	const from = 250_000
	block := uniqueCode(from, hugeOldLines)
	return []hugeCase{
		// Every window agrees but for the last line.
		{"alike, last line differs", same, strings.Repeat("x\n", hugeOldLines-1) + "y\n", 0},
		// Anchors agree everywhere; one middle line differs.
		{"alike, a middle line differs", same, strings.Repeat("x\n", hugeOldLines/2) + "z\n" + strings.Repeat("x\n", hugeOldLines/2-1), 0},
		// Real lines, old_string with its indentation changed.
		{"code, reindented", code, strings.ReplaceAll(block, "\t", "    "), from + 1},
		// Real lines, one misremembered.
		{"code, a line misremembered", code, strings.Replace(block, fmt.Sprintf("f(%d)", from+1500), fmt.Sprintf("g(%d)", from+1500), 1), from + 1},
		// Real lines, one left out.
		{"code, a line left out", code, strings.Replace(block, fmt.Sprintf("\tv%d := f(%d)\n", from+1500, from+1500), "", 1), from + 1},
	}
}

// BenchmarkHugeEdit times an edit of each huge case: found, or refused
// in words, in about a second at most.
func BenchmarkHugeEdit(b *testing.B) {
	for _, c := range hugeCases() {
		data := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Apply(data, "f.go", Change{Old: c.old, New: "new\n"}); (err == nil) != (c.at > 0) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHugeHunk times a patch whose one hunk has 3,000 lines of
// context and removals, in a 500,000-line file whose lines are nearly all
// alike.
func BenchmarkHugeHunk(b *testing.B) {
	body, hunks := hugeHunk()
	for b.Loop() {
		if _, _, _, err := applyHunks(b.Context(), body, hunks, "f.go"); err != nil {
			b.Fatal(err)
		}
	}
}

// hugeHunk is a file of 500,000 lines "x" with one "y" near the end, and
// a hunk of 3,000 lines ending at the "y" that removes it: every line of
// the file starts a window that agrees for thousands of lines.
func hugeHunk() (string, []Hunk) {
	body := strings.Repeat("x\n", hugeFileLines-10) + "y\n" + strings.Repeat("x\n", 9)
	h := Hunk{}
	for range hugeOldLines - 1 {
		h.Lines = append(h.Lines, HunkLine{Op: ' ', Text: "x"})
	}
	h.Lines = append(h.Lines, HunkLine{Op: '-', Text: "y"}, HunkLine{Op: '+', Text: "z"})
	return body, []Hunk{h}
}
