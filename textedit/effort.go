package textedit

import (
	"context"
	"errors"
	"strings"

	"cchub/textfmt"
)

// ErrTooLarge is the kind of error for an old_string or hunk that was not
// found exactly and is too large to look for loosely in a file this size
// within the effort an edit may take (see effortLimit).
var ErrTooLarge = errors.New("too large to match loosely")

// effortLimit bounds the work of the forgiving layers of one edit, in
// line comparisons (a line of old_string against a line of the file): a
// hundred million take a second or two. Real edits, even of thousands of
// lines, take a few million; only old_strings of thousands of lines in
// files of hundreds of thousands of nearly equal lines reach it.
const effortLimit = 100_000_000

// effortCheck is how many units of work go between two looks at the
// context.
const effortCheck = 1 << 16

// effort counts the work of one edit's search and looks at its context
// now and then. Once it has stopped (err set) every spend fails, so a
// layer gives up where it is.
type effort struct {
	ctx          context.Context
	spent, limit int
	next         int
	err          error
}

func newEffort(ctx context.Context) *effort {
	return &effort{ctx: ctx, limit: effortLimit} // the first spend looks
}

// spend counts n units and says whether the search may go on.
func (e *effort) spend(n int) bool {
	if e.err != nil {
		return false
	}
	if e.spent+n > e.limit {
		e.err = ErrTooLarge
		return false
	}
	e.spent += n
	if e.spent < e.next {
		return true
	}
	e.next = e.spent + effortCheck
	if err := e.ctx.Err(); err != nil {
		e.err = err
		return false
	}
	return true
}

// stopped is the error for a search that e stopped, or nil: the
// context's error, or ErrTooLarge in words that say what to do.
func (e *effort) stopped(body, path, old string) error {
	switch {
	case e.err == nil:
		return nil
	case e.err != ErrTooLarge:
		return e.err
	}
	want, _ := oldLines(old)
	lines := strings.Count(body, "\n")
	if !strings.HasSuffix(body, "\n") {
		lines++
	}
	return failf(ErrTooLarge, "old_string (%s lines) is not in %s exactly, and looking for it loosely among the file's %s lines would take too long. Read the lines again with read (offset/limit) and copy them exactly, or replace fewer lines at a time (a few hundred)",
		textfmt.Thousands(len(want)), path, textfmt.Thousands(lines))
}

// ok says the search has not stopped.
func (e *effort) ok() bool { return e.err == nil }

// lineSeq finds, in a sequence of line keys, every place where another
// sequence occurs, in time linear in both (Knuth–Morris–Pratt over keys
// interned as integers): a 3,000-line old_string is found in a
// 500,000-line file of nearly equal lines in milliseconds, where comparing
// it at every line would take minutes.
type lineSeq struct {
	ids map[string]int
}

// intern numbers each key; keys of want not in the file get -1.
func (s *lineSeq) intern(keys []string, add bool) []int {
	out := make([]int, len(keys))
	for i, k := range keys {
		id, ok := s.ids[k]
		if !ok {
			id = -1
			if add {
				id = len(s.ids)
				s.ids[k] = id
			}
		}
		out[i] = id
	}
	return out
}

// occurrences returns every index i (overlapping ones included, from
// `from` on, at most max of them; max < 0 for all) where
// file[i:i+len(want)] equals want, key for key.
func occurrences(file, want []string, from, max int) []int {
	if len(want) == 0 || len(want) > len(file)-from {
		return nil
	}
	s := lineSeq{ids: make(map[string]int, len(want))}
	w := s.intern(want, true)
	f := s.intern(file[from:], false)
	// fail[k] is the length of the longest proper prefix of w[:k+1] that
	// is also its suffix.
	fail := make([]int, len(w))
	for k, j := 1, 0; k < len(w); k++ {
		for j > 0 && w[k] != w[j] {
			j = fail[j-1]
		}
		if w[k] == w[j] {
			j++
		}
		fail[k] = j
	}
	var out []int
	for i, j := 0, 0; i < len(f); i++ {
		if f[i] < 0 {
			j = 0
			continue
		}
		for j > 0 && f[i] != w[j] {
			j = fail[j-1]
		}
		if f[i] == w[j] {
			j++
		}
		if j == len(w) {
			out = append(out, from+i-len(w)+1)
			if len(out) == max {
				return out
			}
			j = fail[j-1]
		}
	}
	return out
}
