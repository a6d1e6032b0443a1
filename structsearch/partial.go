package structsearch

import (
	"bytes"
	"context"
	"slices"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
	"cchub/syntax"
)

// Partial parsing. Most of a Python search's time is tree-sitter's parse
// of files that hold the pattern's tokens, but a match of most patterns
// (an expression, a simple statement) lies within one logical line, and
// few lines of a file hold every token. For a file known to parse without
// a syntax error (Sources.Clean: the token index, from the code graph's
// parse), only those lines are parsed, with what makes them parse as they
// do in the whole file: the headers of the blocks they are in, and the
// rest of pySkeleton's lines. A valid Python file cut down to such a
// skeleton is valid Python whose lines are the same statements in the
// same kinds of block, so a node inside one of the lines is the same node
// with the same children; the parse is of tree-sitter's included ranges,
// so every position is the file's. Whatever does not hold (lines that do
// not nest, a skeleton that does not parse cleanly) parses the whole
// file, as does every other language and every pattern a match of which
// may span lines.

// pyMultiline are the kinds of Python node that can hold more than one
// logical line (a comment is outside any).
var pyMultiline = map[string]bool{
	"module": true, "block": true, "comment": true, "ERROR": true,
	"if_statement": true, "elif_clause": true, "else_clause": true,
	"for_statement": true, "while_statement": true,
	"try_statement": true, "except_clause": true, "except_group_clause": true, "finally_clause": true,
	"with_statement": true, "match_statement": true, "case_clause": true,
	"function_definition": true, "class_definition": true, "decorated_definition": true,
}

// ParsesInParts says whether a search in lang may parse only some parts
// of a file known to parse without a syntax error (Sources.Clean): some
// lines of Python, some declarations of Go (partial_go.go).
func ParsesInParts(language *syntax.Language) bool {
	return language.Name == lang.Python || language.Name == lang.Go
}

// FileParsesInParts is ParsesInParts of the language of the file at rel.
func FileParsesInParts(rel string) bool {
	l := syntax.LanguageFor(rel)
	return l != nil && ParsesInParts(l)
}

// ParsesCleanly parses src, the content of the file at rel, and says
// whether it holds no syntax error: what Sources.Clean is asked to vouch
// for. ok is false when it could not tell (too large, cancelled).
func ParsesCleanly(ctx context.Context, rel string, src []byte) (clean, ok bool) {
	tree, err := syntax.ParseOnce(ctx, syntax.LanguageFor(rel), src)
	if err != nil {
		return false, false
	}
	defer tree.Release()
	return !tree.RootNode().HasError(), true
}

// partly says whether a file known to parse cleanly may be parsed only in
// part for p: p holds a token, is no sequence (which may span lines) or
// lone metavariable, and every match of it lies within one logical line
// of Python or one declaration of Go.
func (p *Pattern) partly() bool {
	if !ParsesInParts(p.Lang) || p.seq || p.root.meta != "" || len(p.runs) == 0 {
		return false
	}
	if p.Lang.Name == lang.Go {
		return p.root.kind != "source_file" && p.root.kind != "comment" && p.root.kind != "package_clause"
	}
	return !pyMultiline[p.root.kind]
}

// matchParts is Match for a file known to parse without a syntax error
// (of a pattern that is partly), parsing only the parts of it that can
// hold a match. It says false when the file must be parsed whole instead.
func (p *Pattern) matchParts(ctx context.Context, src []byte) ([]Match, bool, error) {
	if p.Lang.Name == lang.Go {
		return p.matchDecls(ctx, src)
	}
	return p.matchLines(ctx, src)
}

// pyScratch is what matchLines needs per file and lets go after it: the
// logical lines of a file (a tenth of a search's allocations on the
// stdlib when made anew) and the runs found in each.
type pyScratch struct {
	lines []pyLine
	hits  []int
}

var pyScratches = sync.Pool{New: func() any { return new(pyScratch) }}

// matchLines is Match for a file known to parse without a syntax error,
// parsing only the lines that can hold a match (see pySkeleton). It says
// false when the file must be parsed whole instead.
func (p *Pattern) matchLines(ctx context.Context, src []byte) ([]Match, bool, error) {
	sc := pyScratches.Get().(*pyScratch)
	defer pyScratches.Put(sc)
	lines, ok := pyLogicalLines(src, sc.lines)
	sc.lines = lines
	if !ok {
		return nil, false, nil
	}
	sc.hits = slices.Grow(sc.hits[:0], len(lines))[:len(lines)]
	clear(sc.hits)
	cands := p.pyCandidateLines(src, lines, sc.hits)
	if len(cands) == 0 {
		return nil, true, nil
	}
	ks, ok := pySkeleton(src, lines, cands)
	if !ok {
		return nil, false, nil
	}
	return p.matchRanges(ctx, src, pyRanges(src, lines, ks), func(root *sitter.Node) bool { return withinLines(root, lines) })
}

// matchRanges parses the ranges of src alone and matches p in the tree,
// unless the tree has a syntax error or fails check: then it says false,
// and the file is to be parsed whole.
func (p *Pattern) matchRanges(ctx context.Context, src []byte, ranges []sitter.Range, check func(root *sitter.Node) bool) ([]Match, bool, error) {
	tree, err := syntax.ParseRanges(ctx, p.Lang, src, ranges)
	if err != nil {
		return nil, false, nil // the whole file's parse says why
	}
	defer tree.Release()
	root := tree.RootNode()
	if root.HasError() || !check(root) {
		return nil, false, nil
	}
	ms, err := p.Match(ctx, root, src)
	return ms, true, err
}

// pyCandidateLines returns the logical lines that hold an occurrence of
// every run of the pattern.
func (p *Pattern) pyCandidateLines(src []byte, lines []pyLine, hits []int) []int {
	// hits counts the runs found in each line (zero on entry).
	for r, run := range p.runs {
		k := 0
		p.eachOccurrence(src, run, func(off int) bool {
			for k < len(lines) && lines[k].end <= off {
				k++
			}
			if k == len(lines) {
				return false
			}
			if off >= lines[k].code && hits[k] == r {
				hits[k] = r + 1
			}
			return true
		})
	}
	var out []int
	for k, h := range hits {
		// A match in the line holds its twins in the line too.
		if h == len(p.runs) && (p.twin == nil || p.twinsAgree(src[lines[k].code:lines[k].end])) {
			out = append(out, k)
		}
	}
	return out
}

// pySkeleton picks the lines to parse so that the candidate lines are
// parsed in the context they have in the whole file: each line with the
// headers of the blocks it is in; a header with the first line of its
// block; a clause (elif, else, except, finally) with the statement it
// belongs to and the clauses before it; a try with its first clause; a
// decorator with what it decorates. It says false when the lines do not
// nest as Python's must (the whole file is parsed then).
func pySkeleton(src []byte, lines []pyLine, cands []int) ([]int, bool) {
	ind := make([]int, len(lines))
	parent := make([]int, len(lines))
	var stack []int // the lines whose blocks are open
	for k, l := range lines {
		w := 0
		for _, c := range src[l.start:l.code] {
			switch c {
			case ' ':
				w++
			case '\t':
				w += 8 // as tree-sitter's scanner counts
			default:
				w = 0
			}
		}
		ind[k] = w
		// Lines nest as Python's must, or tree-sitter may read them
		// otherwise: deeper only after a header, and back out only to
		// a depth a line before had.
		switch {
		case k == 0:
		case lines[k-1].header != (w > ind[k-1]):
			return nil, false // a ':' that opens no block (`f = lambda:`), a deeper line after none
		}
		level := k == 0 || w > ind[k-1]
		for len(stack) > 0 && ind[stack[len(stack)-1]] >= w {
			level = level || ind[stack[len(stack)-1]] == w
			stack = stack[:len(stack)-1]
		}
		if !level && w != 0 {
			return nil, false // back out to a depth no block has
		}
		parent[k] = -1
		if len(stack) > 0 {
			parent[k] = stack[len(stack)-1]
		}
		stack = append(stack, k)
	}
	if lines[len(lines)-1].header {
		return nil, false
	}
	in := make([]bool, len(lines))
	ok := true
	var add func(k int)
	add = func(k int) {
		if !ok || in[k] {
			return
		}
		in[k] = true
		l := lines[k]
		if a := parent[k]; a >= 0 {
			add(a) // a header: only after one may a line be deeper
		}
		word := firstWord(src, l.code)
		if src[l.code] == '@' {
			if k+1 == len(lines) || ind[k+1] != ind[k] {
				ok = false
				return
			}
			add(k + 1)
		}
		// A header's block (deeper lines after it, as the nesting above
		// made sure) gets a line below, unless one of its lines is in
		// already: a line is in with its headers.
		if pyClause[word] {
			// The statement it belongs to, and its clauses before it.
			j := k - 1
			for j >= 0 && ind[j] > ind[k] {
				j--
			}
			if j < 0 || ind[j] != ind[k] {
				ok = false
				return
			}
			add(j)
		}
		if word == "try" {
			j := k + 1
			for j < len(lines) && ind[j] > ind[k] {
				j++
			}
			if j == len(lines) || ind[j] != ind[k] {
				ok = false
				return
			}
			add(j)
		}
	}
	for _, k := range cands {
		add(k)
	}
	// A header with no line of its block in gets the first: adding one
	// can bring in headers of its own, so until there are none.
	for more := true; more && ok; {
		more = false
		next := -1 // the next line in, after k
		for k := len(lines) - 1; k >= 0; k-- {
			if !in[k] {
				continue
			}
			if lines[k].header && src[lines[k].code] != '@' && (next < 0 || ind[next] <= ind[k]) {
				add(k + 1)
				more = true
			}
			next = k
		}
	}
	if !ok {
		return nil, false
	}
	var out []int
	for k, yes := range in {
		if yes {
			out = append(out, k)
		}
	}
	return out, true
}

// withinLines says whether every node of the tree (of a skeleton's parse)
// that is not a block or a compound statement lies within one logical
// line, as it must if tree-sitter split the lines where pyLogicalLines
// did: a line it read on into the next would show here.
func withinLines(root *sitter.Node, lines []pyLine) bool {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	for {
		n := c.CurrentNode()
		down := false
		if pyMultiline[n.Type()] {
			down = c.GoToFirstChild()
		} else if start, end := int(n.StartByte()), int(n.EndByte()); end > start {
			k, _ := slices.BinarySearchFunc(lines, start, func(l pyLine, off int) int { return l.end - 1 - off })
			if k == len(lines) || start < lines[k].start || end > lines[k].end {
				return false
			}
		}
		if down {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return true
			}
		}
	}
}

// pyClause are the words a clause of a compound statement starts with.
var pyClause = map[string]bool{"elif": true, "else": true, "except": true, "finally": true}

// firstWord is the word that starts at i ("" if none does).
func firstWord(src []byte, i int) string {
	j := i
	for j < len(src) && wordByte(src[j]) {
		j++
	}
	return string(src[i:j])
}

// span is a part of a source: its bytes [start, end).
type span struct{ start, end int }

// pyRanges returns the ranges of the lines ks (ascending), indentation and
// all, lines that follow each other in src joined into one range.
func pyRanges(src []byte, lines []pyLine, ks []int) []sitter.Range {
	var spans []span
	for _, k := range ks {
		if n := len(spans); n > 0 && spans[n-1].end == lines[k].start {
			spans[n-1].end = lines[k].end
		} else {
			spans = append(spans, span{lines[k].start, lines[k].end})
		}
	}
	return rangesOf(src, spans)
}

// rangesOf is tree-sitter's ranges of spans (sorted, not overlapping, none
// empty) of src, with their rows and columns.
func rangesOf(src []byte, spans []span) []sitter.Range {
	// The offsets asked about only grow: count the line breaks between
	// one and the next, not in the whole file.
	row, lineStart, at := 0, 0, 0
	point := func(off int) sitter.Point {
		for {
			j := bytes.IndexByte(src[at:off], '\n')
			if j < 0 {
				break
			}
			row++
			lineStart = at + j + 1
			at = lineStart
		}
		at = off
		return sitter.Point{Row: uint32(row), Column: uint32(off - lineStart)}
	}
	out := make([]sitter.Range, 0, len(spans))
	for _, s := range spans {
		out = append(out, sitter.Range{StartPoint: point(s.start), EndPoint: point(s.end), StartByte: uint32(s.start), EndByte: uint32(s.end)})
	}
	return out
}
