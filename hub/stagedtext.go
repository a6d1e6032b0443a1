package hub

import (
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/textfmt"
)

// Text is the answer a model reads when a change is staged or shown:
// the summary (counts, how to resolve, each file's share, the first
// places), then the diff's first hunks that fit, then how many are not
// shown and the call that shows them. How to resolve comes before the
// diff: a reader that stops early still knows it.
func (o *StagedOutcome) Text() string {
	var b strings.Builder
	s := o.Staged
	fmt.Fprintf(&b, "staged %s %s: %s; nothing is written yet.\n", s.Kind, s.ID, s.EditsInFiles())
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
		s.WriteFiles(&b)
	}
	s.WritePlaces(&b)
	headers, pages, _ := s.Pages()
	b.WriteString("\n")
	if len(pages) == 0 {
		return b.String()
	}
	b.WriteString(astedit.PageDiff(headers, pages[0]))
	if len(pages) > 1 {
		hunks, files := astedit.NotShown(pages[1:])
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
	headers, pages, total := o.Staged.Pages()
	id := o.Staged.ID
	if n > len(pages) {
		return "", fmt.Errorf("change %s has %s of diff; page %d is past the end: resolve action=show id=%s page=%d shows the last", id, textfmt.Count(len(pages), "page"), n, id, len(pages))
	}
	var b strings.Builder
	p := pages[n-1]
	fmt.Fprintf(&b, "staged %s %s, diff page %d of %d: hunks %d-%d of %d", o.Staged.Kind, id, n, len(pages), p[0].Hunk+1, p[len(p)-1].Hunk+1, total)
	if p[0].Part > 0 {
		fmt.Fprintf(&b, "; hunk %d, too long for a page, goes on from page %d", p[0].Hunk+1, n-1)
	}
	if last := p[len(p)-1]; n < len(pages) && pages[n][0].Hunk == last.Hunk {
		fmt.Fprintf(&b, "; hunk %d goes on on page %d", last.Hunk+1, n+1)
	}
	b.WriteString("\n")
	b.WriteString(astedit.PageDiff(headers, p))
	if n < len(pages) {
		hunks, files := astedit.NotShown(pages[n:])
		fmt.Fprintf(&b, "(%s in %s after this page: resolve action=show id=%s page=%d)\n", textfmt.Count(hunks, "more hunk"), textfmt.Count(files, "file"), id, n+1)
	} else {
		fmt.Fprintf(&b, "(last page; to apply or drop the change: resolve action=show id=%s says how)\n", id)
	}
	return b.String(), nil
}
