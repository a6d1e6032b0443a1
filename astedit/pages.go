package astedit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cchub/textfmt"
)

// The bounds of a staged change's answer. The summary (counts, how to
// resolve, the files, the first places) stays within about 3 KB, and the
// diff of the first page within firstPageDiff, so the answer fits in
// 8 KB; later pages hold up to laterPageDiff of diff each. The split into
// pages depends on the diff alone, so `resolve action=show page=N`
// continues exactly where the staging answer stopped.
const (
	firstPageDiff = 4800
	laterPageDiff = 7400
	// splitHunk: a hunk longer than this is cut at lines (the only cut
	// inside a hunk), so a page never has to hold more.
	splitHunk   = 4000
	maxPlaces   = 10
	maxFileRows = 20
	placeRunes  = 120
)

// EditsInFiles says how big a staged change is: "27 edits in 7 files"
// (an edit is one place the change touches: a rewritten match, a renamed
// identifier), or, for a change without places, its hunks.
func (s *Staged) EditsInFiles() string {
	files := textfmt.Count(len(s.Files), "file")
	if len(s.Locations) > 0 {
		return textfmt.Count(len(s.Locations), "edit") + " in " + files
	}
	hunks := 0
	for _, f := range s.Files {
		hunks += strings.Count(f.Diff, "\n@@ ")
		if strings.HasPrefix(f.Diff, "@@ ") {
			hunks++
		}
	}
	if hunks > 0 {
		return textfmt.Count(hunks, "hunk") + " in " + files
	}
	return "changes in " + files
}

// WriteFiles lists each file's share of the change, bounded.
func (s *Staged) WriteFiles(b *strings.Builder) {
	edits := map[string]int{}
	for _, l := range s.Locations {
		edits[l.Path]++
	}
	for i, f := range s.Files {
		if i == maxFileRows {
			fmt.Fprintf(b, "  and %s (each in the diff's pages)\n", textfmt.Count(len(s.Files)-i, "more file"))
			break
		}
		what := ""
		if n := edits[f.Path]; n > 0 {
			what = textfmt.Count(n, "edit") + ", "
		}
		status := ""
		if f.Status != "modified" {
			status = f.Status + ", "
		}
		fmt.Fprintf(b, "  %s: %s%s+%d -%d\n", f.Path, what, status, f.Added, f.Removed)
	}
}

// WritePlaces lists the first places, and counts the others.
func (s *Staged) WritePlaces(b *strings.Builder) {
	ls := s.Locations
	for i, l := range ls {
		if i == maxPlaces {
			fmt.Fprintf(b, "  and %s (each in the diff)\n", textfmt.Count(len(ls)-i, "more place"))
			break
		}
		text := l.Text
		if utf8.RuneCountInString(text) > placeRunes {
			text = string([]rune(text)[:placeRunes]) + "…"
		}
		fmt.Fprintf(b, "  %s:%d: %s\n", l.Path, l.Line, text)
	}
}

// DiffPiece is a hunk of one file's diff, or a part of a hunk too long
// for a page (cut at a line).
type DiffPiece struct {
	File int // index in Files
	Hunk int // 0-based, over the whole change
	Part int // 0: the hunk's start; 1...: the lines that follow a cut
	Text string
}

// pieces cuts the change's diffs into hunks (the file headers apart).
func (s *Staged) pieces() ([]string, []DiffPiece) {
	headers := make([]string, len(s.Files))
	var ps []DiffPiece
	hunk := -1
	for i, f := range s.Files {
		d := f.Diff
		at := strings.Index(d, "\n@@ ")
		if strings.HasPrefix(d, "@@ ") {
			at = -1
		} else if at < 0 {
			headers[i] = d // no hunk: the header says it all
			if d != "" {
				hunk++
				ps = append(ps, DiffPiece{File: i, Hunk: hunk})
			}
			continue
		}
		headers[i] = d[:at+1]
		d = d[at+1:]
		for d != "" {
			end := strings.Index(d, "\n@@ ")
			h := d
			if end >= 0 {
				h, d = d[:end+1], d[end+1:]
			} else {
				d = ""
			}
			hunk++
			part := 0
			for len(h) > splitHunk {
				cut := strings.LastIndexByte(h[:splitHunk], '\n') + 1
				if cut <= 0 { // one line longer than the bound: kept whole
					cut = strings.IndexByte(h, '\n') + 1
					if cut <= 0 || cut == len(h) {
						break
					}
				}
				ps = append(ps, DiffPiece{File: i, Hunk: hunk, Part: part, Text: h[:cut]})
				h = h[cut:]
				part++
			}
			ps = append(ps, DiffPiece{File: i, Hunk: hunk, Part: part, Text: h})
		}
	}
	return headers, ps
}

// Pages packs the change's diff into pages into pages: the first holds up to
// firstPageDiff bytes of diff, the others laterPageDiff; a page holds at
// least one piece. A file's header is counted on each page it appears.
// It returns the files' headers, the pages and the count of hunks.
func (s *Staged) Pages() ([]string, [][]DiffPiece, int) {
	headers, ps := s.pieces()
	var pages [][]DiffPiece
	var cur []DiffPiece
	size, budget := 0, firstPageDiff
	for _, p := range ps {
		n := len(p.Text)
		if len(cur) == 0 || cur[len(cur)-1].File != p.File {
			n += len(headers[p.File])
		}
		if len(cur) > 0 && size+n > budget {
			pages = append(pages, cur)
			cur, size, budget = nil, 0, laterPageDiff
			n = len(p.Text) + len(headers[p.File])
		}
		cur = append(cur, p)
		size += n
	}
	if len(cur) > 0 {
		pages = append(pages, cur)
	}
	total := 0
	if len(ps) > 0 {
		total = ps[len(ps)-1].Hunk + 1
	}
	return headers, pages, total
}

// PageDiff writes a page's pieces, each file's header before its first
// piece on the page: every page reads as a unified diff.
func PageDiff(headers []string, page []DiffPiece) string {
	var b strings.Builder
	for i, p := range page {
		if i == 0 || page[i-1].File != p.File {
			b.WriteString(headers[p.File])
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// NotShown counts the hunks (a hunk cut by an earlier page counts) and
// files of pages.
func NotShown(pages [][]DiffPiece) (int, int) {
	hunks, files := map[int]bool{}, map[int]bool{}
	for _, p := range pages {
		for _, x := range p {
			hunks[x.Hunk] = true
			files[x.File] = true
		}
	}
	return len(hunks), len(files)
}
