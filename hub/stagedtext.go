package hub

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cchub/astedit"
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
func EditsInFiles(s *astedit.Staged) string {
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

// Text is the answer a model reads when a change is staged or shown:
// the summary (counts, how to resolve, each file's share, the first
// places), then the diff's first hunks that fit, then how many are not
// shown and the call that shows them. How to resolve comes before the
// diff: a reader that stops early still knows it.
func (o *StagedOutcome) Text() string {
	var b strings.Builder
	s := o.Staged
	fmt.Fprintf(&b, "staged %s %s: %s; nothing is written yet.\n", s.Kind, s.ID, EditsInFiles(s))
	if s.Nested > 0 {
		fmt.Fprintf(&b, "%s inside rewritten ones %s not rewritten: apply this change, then run the same rewrite again to rewrite them.\n", textfmt.Count(s.Nested, "nested match"), isAre(s.Nested))
	}
	if s.Overlapping > 0 {
		fmt.Fprintf(&b, "%s overlapping rewritten ones %s left out: apply this change and run the rewrite again.\n", textfmt.Count(s.Overlapping, "match"), isAre(s.Overlapping))
	}
	if s.Unchanged > 0 {
		fmt.Fprintf(&b, "%s already read as the template makes them.\n", textfmt.Count(s.Unchanged, "match"))
	}
	for lang, why := range o.Invalid {
		fmt.Fprintf(&b, "not searched in %s: %s\n", lang, why)
	}
	b.WriteString(o.howToResolve())
	// What the imports are comes next: the reviewer reads the diff
	// knowing it.
	b.WriteString(o.ImportsText())
	if len(s.Files) > 1 || len(s.Locations) == 0 {
		o.writeFiles(&b)
	}
	o.writePlaces(&b)
	headers, pages, _ := o.paged()
	b.WriteString("\n")
	if len(pages) == 0 {
		return b.String()
	}
	b.WriteString(pageDiff(headers, pages[0]))
	if len(pages) > 1 {
		hunks, files := notShown(pages[1:])
		fmt.Fprintf(&b, "(%s in %s not shown: resolve action=show id=%s page=2; %s of diff in all)\n",
			textfmt.Count(hunks, "more hunk"), textfmt.Count(files, "file"), s.ID, textfmt.Count(len(pages), "page"))
	}
	return b.String()
}

// PageText is page n (1-based) of the change's diff: page 1 is Text,
// later pages the diff alone, each ending with the call for the next
// page or saying it is the last.
func (o *StagedOutcome) PageText(n int) (string, error) {
	if n <= 1 {
		return o.Text(), nil
	}
	headers, pages, total := o.paged()
	id := o.Staged.ID
	if n > len(pages) {
		return "", fmt.Errorf("change %s has %s of diff; page %d is past the end: resolve action=show id=%s page=%d shows the last", id, textfmt.Count(len(pages), "page"), n, id, len(pages))
	}
	var b strings.Builder
	p := pages[n-1]
	fmt.Fprintf(&b, "staged %s %s, diff page %d of %d: hunks %d-%d of %d", o.Staged.Kind, id, n, len(pages), p[0].hunk+1, p[len(p)-1].hunk+1, total)
	if p[0].part > 0 {
		fmt.Fprintf(&b, "; hunk %d, too long for a page, goes on from page %d", p[0].hunk+1, n-1)
	}
	if last := p[len(p)-1]; n < len(pages) && pages[n][0].hunk == last.hunk {
		fmt.Fprintf(&b, "; hunk %d goes on on page %d", last.hunk+1, n+1)
	}
	b.WriteString("\n")
	b.WriteString(pageDiff(headers, p))
	if n < len(pages) {
		hunks, files := notShown(pages[n:])
		fmt.Fprintf(&b, "(%s in %s after this page: resolve action=show id=%s page=%d)\n", textfmt.Count(hunks, "more hunk"), textfmt.Count(files, "file"), id, n+1)
	} else {
		fmt.Fprintf(&b, "(last page; to apply or drop the change: resolve action=show id=%s says how)\n", id)
	}
	return b.String(), nil
}

// writeFiles lists each file's share of the change, bounded.
func (o *StagedOutcome) writeFiles(b *strings.Builder) {
	s := o.Staged
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

// writePlaces lists the first places, and counts the others.
func (o *StagedOutcome) writePlaces(b *strings.Builder) {
	ls := o.Staged.Locations
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

// diffPiece is a hunk of one file's diff, or a part of a hunk too long
// for a page (cut at a line).
type diffPiece struct {
	file int // index in Files
	hunk int // 0-based, over the whole change
	part int // 0: the hunk's start; 1...: the lines that follow a cut
	text string
}

// pieces cuts the change's diffs into hunks (the file headers apart).
func (o *StagedOutcome) pieces() ([]string, []diffPiece) {
	headers := make([]string, len(o.Staged.Files))
	var ps []diffPiece
	hunk := -1
	for i, f := range o.Staged.Files {
		d := f.Diff
		at := strings.Index(d, "\n@@ ")
		if strings.HasPrefix(d, "@@ ") {
			at = -1
		} else if at < 0 {
			headers[i] = d // no hunk: the header says it all
			if d != "" {
				hunk++
				ps = append(ps, diffPiece{file: i, hunk: hunk})
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
				ps = append(ps, diffPiece{file: i, hunk: hunk, part: part, text: h[:cut]})
				h = h[cut:]
				part++
			}
			ps = append(ps, diffPiece{file: i, hunk: hunk, part: part, text: h})
		}
	}
	return headers, ps
}

// paged packs the pieces into pages: the first holds up to
// firstPageDiff bytes of diff, the others laterPageDiff; a page holds at
// least one piece. A file's header is counted on each page it appears.
// It returns the files' headers, the pages and the count of hunks.
func (o *StagedOutcome) paged() ([]string, [][]diffPiece, int) {
	headers, ps := o.pieces()
	var pages [][]diffPiece
	var cur []diffPiece
	size, budget := 0, firstPageDiff
	for _, p := range ps {
		n := len(p.text)
		if len(cur) == 0 || cur[len(cur)-1].file != p.file {
			n += len(headers[p.file])
		}
		if len(cur) > 0 && size+n > budget {
			pages = append(pages, cur)
			cur, size, budget = nil, 0, laterPageDiff
			n = len(p.text) + len(headers[p.file])
		}
		cur = append(cur, p)
		size += n
	}
	if len(cur) > 0 {
		pages = append(pages, cur)
	}
	total := 0
	if len(ps) > 0 {
		total = ps[len(ps)-1].hunk + 1
	}
	return headers, pages, total
}

// pageDiff writes a page's pieces, each file's header before its first
// piece on the page: every page reads as a unified diff.
func pageDiff(headers []string, page []diffPiece) string {
	var b strings.Builder
	for i, p := range page {
		if i == 0 || page[i-1].file != p.file {
			b.WriteString(headers[p.file])
		}
		b.WriteString(p.text)
	}
	return b.String()
}

// notShown counts the hunks (a hunk cut by an earlier page counts) and
// files of pages.
func notShown(pages [][]diffPiece) (int, int) {
	hunks, files := map[int]bool{}, map[int]bool{}
	for _, p := range pages {
		for _, x := range p {
			hunks[x.hunk] = true
			files[x.file] = true
		}
	}
	return len(hunks), len(files)
}
