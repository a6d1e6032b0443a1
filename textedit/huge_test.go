package textedit

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// An old_string of 3,000 lines in a file of 500,000 is found where it is
// (reindented, a line misremembered, a line left out), and where every
// window of the file nearly matches it, refused in words that say what to
// do, within the effort an edit may take: a probe found such edits taking
// more than a minute, the time growing with file lines × old_string lines.
func TestHugeEditsLandOrAreRefused(t *testing.T) {
	for _, c := range hugeCases() {
		t.Run(c.name, func(t *testing.T) {
			e := newEffort(context.Background())
			body := c.body
			cs := findCandidates(e, body, c.old)
			if e.spent > effortLimit {
				t.Errorf("spent %d, over the limit %d", e.spent, effortLimit)
			}
			a, err := Apply([]byte(body), "f.go", Change{Old: c.old, New: "new\n"})
			if c.at == 0 {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("Apply = %v, want ErrTooLarge (%d candidates, effort %d)", err, len(cs), e.spent)
				}
				for _, w := range []string{"old_string (3,000 lines) is not in f.go exactly", "file's 500,000 lines would take too long", "copy them exactly", "replace fewer lines at a time"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.FirstLine != c.at || a.Replacements != 1 {
				t.Errorf("replaced %d at line %d, want 1 at line %d", a.Replacements, a.FirstLine, c.at)
			}
			if got, want := strings.Count(string(a.Data), "\n"), hugeFileLines-strings.Count(c.old, "\n")+1; got != want && c.name != "code, a line left out" {
				t.Errorf("%d lines after the edit, want %d", got, want)
			}
		})
	}
}

// A 3,000-line hunk in a 500,000-line file of nearly equal lines fits
// where it belongs (a probe found this taking 44 s), and one that fits
// nowhere says so.
func TestHugeHunkFits(t *testing.T) {
	body, hunks := hugeHunk()
	out, added, removed, err := applyHunks(context.Background(), body, hunks, "f.go")
	if err != nil {
		t.Fatal(err)
	}
	if added != 1 || removed != 1 || strings.Contains(out, "y") || strings.Index(out, "z\n") != 2*(hugeFileLines-10) {
		t.Errorf("added %d, removed %d, z at byte %d", added, removed, strings.Index(out, "z\n"))
	}
	hunks[0].Lines[0].Text = "w" // now the hunk fits nowhere
	if _, _, _, err := applyHunks(context.Background(), body, hunks, "f.go"); !errors.Is(err, ErrPatchDoesNotFit) {
		t.Errorf("a hunk that fits nowhere: %v, want ErrPatchDoesNotFit", err)
	}
}

// An edit or patch whose context is done stops with the context's error,
// whatever it was doing; nothing of the file is touched (Apply works on a
// copy).
func TestEditStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range hugeCases() {
		if _, err := ApplyContext(ctx, []byte(c.body), "f.go", Change{Old: c.old, New: "new\n"}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", c.name, err)
		}
	}
	body, hunks := hugeHunk()
	if _, _, _, err := applyHunks(ctx, body, hunks, "f.go"); !errors.Is(err, context.Canceled) {
		t.Errorf("applyHunks: %v, want context.Canceled", err)
	}
	// An edit that needs no search beyond the exact one is not slowed by
	// looks at the context, but still answers a done one.
	e := newEffort(ctx)
	findCandidates(e, strings.Repeat("a\n", 100), "b\n")
	if !errors.Is(e.err, context.Canceled) {
		t.Errorf("a short search of a cancelled edit: %v", e.err)
	}
}

// occurrences finds every place, overlapping ones included, as a naive
// search does.
func TestOccurrencesAgreeWithNaiveSearch(t *testing.T) {
	naive := func(file, want []string, from int) []int {
		var out []int
		for i := from; i+len(want) <= len(file); i++ {
			ok := true
			for k := range want {
				if file[i+k] != want[k] {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, i)
			}
		}
		return out
	}
	files := []string{"", "a", "aaaa", "abab", "aabaabaaab", "abcabcabd", "xaxaxaxa", "baaab"}
	for _, f := range files {
		for _, w := range []string{"a", "aa", "ab", "aab", "aba", "abab", "aaab", "abc", "z", "xax", "b"} {
			for from := 0; from <= len(f); from++ {
				fs, ws := strings.Split(f, ""), strings.Split(w, "")
				got, want := occurrences(fs, ws, from, -1), naive(fs, ws, from)
				if len(got) != len(want) {
					t.Fatalf("occurrences(%q, %q, %d) = %v, want %v", f, w, from, got, want)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("occurrences(%q, %q, %d) = %v, want %v", f, w, from, got, want)
					}
				}
				if first := occurrences(fs, ws, from, 1); len(want) > 0 && (len(first) != 1 || first[0] != want[0]) {
					t.Fatalf("occurrences(%q, %q, %d, 1) = %v, want [%d]", f, w, from, first, want[0])
				}
			}
		}
	}
}
