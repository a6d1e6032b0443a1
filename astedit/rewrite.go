package astedit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"cchub/structsearch"
	"cchub/syntax"
	"cchub/textfmt"
	"cchub/workspace"
)

// RewriteOptions says what to rewrite into what, and where.
type RewriteOptions struct {
	Pattern  string // a structural-search pattern
	Template string // its replacement, naming the pattern's metavariables
	Lang     string // "" rewrites each file in the language of its extension
	Paths    []string
	Cache    *syntax.ParseCache // optional: see structsearch.Sources
}

// ErrNoMatch is returned when the pattern matches nowhere.
var ErrNoMatch = errors.New("no match")

// Rewrite finds the pattern's matches and builds the change that replaces
// each with the template. Nothing is written: Stage keeps the change for
// review. Matches inside a rewritten match are counted, not rewritten (the
// outermost wins; another run takes them), and a match that overlaps a
// rewritten one without being inside it is never applied with it.
func Rewrite(ctx context.Context, root *workspace.Root, o RewriteOptions) (*Change, *structsearch.Result, error) {
	bound, err := structsearch.Metavars(o.Pattern)
	if err != nil {
		return nil, nil, err
	}
	tmpl, err := ParseTemplate(o.Template, bound)
	if err != nil {
		return nil, nil, err
	}
	res, err := structsearch.SearchWith(ctx, root, structsearch.Options{Pattern: o.Pattern, Lang: o.Lang, Paths: o.Paths}, structsearch.Sources{Cache: o.Cache})
	if err != nil {
		return nil, nil, err
	}
	c := &Change{Kind: "rewrite", Title: fmt.Sprintf("rewrite `%s` → `%s`", oneLine(o.Pattern), oneLine(o.Template))}
	if len(res.Matches) == 0 {
		return c, res, nil
	}
	byFile := map[string][]structsearch.Match{}
	var paths []string
	for _, m := range res.Matches {
		if _, ok := byFile[m.Path]; !ok {
			paths = append(paths, m.Path)
		}
		byFile[m.Path] = append(byFile[m.Path], m)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		fe, locs, err := rewriteFile(root, p, byFile[p], tmpl, c)
		if err != nil {
			return nil, nil, err
		}
		if fe != nil {
			c.Files = append(c.Files, *fe)
			c.Locations = append(c.Locations, locs...)
		}
	}
	return c, res, nil
}

// rewriteFile applies the outermost, non-overlapping matches of one file.
func rewriteFile(root *workspace.Root, rel string, ms []structsearch.Match, tmpl *Template, c *Change) (*FileEdit, []Location, error) {
	src, err := root.ReadInto(rel, nil, maxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("astedit: %s: %w", rel, err)
	}
	// Outermost first: by start, the longer of two at one start first.
	slices.SortStableFunc(ms, func(a, b structsearch.Match) int {
		if a.StartByte != b.StartByte {
			return a.StartByte - b.StartByte
		}
		return b.EndByte - a.EndByte
	})
	var edits []udiff.Edit
	var locs []Location
	end := -1
	for _, m := range ms {
		switch {
		case m.StartByte < end && m.EndByte <= end:
			c.Nested++
			continue
		case m.StartByte < end:
			c.Overlapping++
			continue
		}
		if m.EndByte > len(src) || string(src[m.StartByte:m.EndByte]) != m.Text {
			return nil, nil, fmt.Errorf("astedit: %s changed while it was being searched; run the rewrite again", rel)
		}
		end = m.EndByte
		text, err := tmpl.Expand(src, m)
		if err != nil {
			return nil, nil, fmt.Errorf("astedit: %s:%d: %w", rel, m.StartLine, err)
		}
		if text == m.Text {
			c.Unchanged++
			continue
		}
		edits = append(edits, udiff.Edit{Start: m.StartByte, End: m.EndByte, New: text})
		locs = append(locs, Location{Path: rel, Line: m.StartLine, Text: textfmt.ClipLine(firstLine(m.Text))})
	}
	if len(edits) == 0 {
		return nil, nil, nil
	}
	out, err := udiff.ApplyBytes(src, edits)
	if err != nil {
		return nil, nil, fmt.Errorf("astedit: %s: %w", rel, err)
	}
	return &FileEdit{Path: rel, Old: src, New: out}, locs, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimRight(s[:i], "\r")
	}
	return s
}

// oneLine shows a pattern or template in a title: its lines joined, cut
// when long.
func oneLine(s string) string {
	fields := strings.Fields(s)
	t := strings.Join(fields, " ")
	if r := []rune(t); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return t
}
