package textedit

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
	"cchub/syntax"
)

// The syntax guard: a forgiving match can land an edit that leaves a file
// that no longer parses. The guard parses the file before (once, lazily)
// and each candidate result after with the file's tree-sitter grammar, and
// says whether the result has more syntax errors than the file had. A file
// that already had errors may keep them; it may not gain more.
//
// Counting rule (syntaxErrors): one for each ERROR node that is not inside
// another ERROR node, and one for each MISSING node that is not inside an
// ERROR node; for Python, plus its indentation errors (pyIndentErrors),
// since tree-sitter-python parses a misindented line without any ERROR.
// Nothing inside an ERROR node is counted: its nested ERRORs and MISSING
// tokens are how the parser happened to recover, and vary with where
// recovery started, so a bad spot counts once. The price: an edit that
// only widens an existing ERROR region is not a break. A subtree whose
// node has no error (ts_node_has_error covers all descendants) is skipped
// whole, so counting costs the erroneous region and the path to it: the
// children of every node on that path, which for an error at the top
// level of a file means all its top-level declarations.
//
// Speed (BenchmarkSyntaxGuard, 10,000-line files, one line changed): a
// full parse costs about 40 ms for Go (net/http) and for Python (stdlib).
// The guard parses the file before once, on the first check, keeps its
// tree until close, and reparses each candidate incrementally from an
// edited copy of that tree: 0.7-0.9 ms for a Go file without errors, 2-3
// ms when it has one (the count walks its ~2,400 top-level declarations),
// 1.3-1.9 ms for Python (0.35 ms of it the indentation scan). A break is
// confirmed by a full parse (see breaksEdit), so refusals cost ~40 ms.

// guardCheckEvery is how many nodes counting visits between looks at its
// context.
const guardCheckEvery = 4096

// syntaxErrors parses src as lang and counts its syntax errors (see the
// counting rule above). It returns ctx's error when ctx is done before or
// during the count.
func syntaxErrors(ctx context.Context, language *syntax.Language, src []byte) (int, error) {
	t, err := syntax.ParseOnce(ctx, language, src)
	if err != nil {
		return 0, err
	}
	defer t.Release()
	n, err := countErrors(ctx, t.RootNode())
	if err != nil {
		return 0, err
	}
	return n + langErrors(language, src), nil
}

// langErrors counts the errors of src that its grammar does not report.
func langErrors(language *syntax.Language, src []byte) int {
	if language.Name == lang.Python {
		return pyIndentErrors(src)
	}
	return 0
}

// countErrors counts the syntax errors of the tree under root with a
// cursor (no recursion), skipping subtrees without errors.
func countErrors(ctx context.Context, root *sitter.Node) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if root == nil || !root.HasError() {
		return 0, nil
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	n := 0
	for i := 1; ; i++ {
		if i%guardCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		// HasError first: most nodes visited are clean siblings on the
		// way to an error. A MISSING node has an error cost; an ERROR leaf
		// of skipped bytes has none (it sits inside an ERROR node, in all
		// we have seen), so a clean node is still asked IsError.
		if node := c.CurrentNode(); node.HasError() {
			if node.IsError() || node.IsMissing() {
				n++
			} else if c.GoToFirstChild() {
				continue
			}
		} else if node.IsError() {
			n++
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return n, nil
			}
		}
	}
}

// guardParsers are parsers for incremental reparses, one goroutine at a
// time each. They are never given a cancellable context (see parse in
// workspace: go-tree-sitter can arm a parser's cancel flag after ParseCtx
// returned), so a pooled parser is always usable.
var guardParsers = sync.Pool{New: func() any { return sitter.NewParser() }}

// guard checks candidate results of one edit of one file against the file
// before. A nil guard (unknown language) never finds a break. A guard is
// for one goroutine; close frees the tree it keeps.
type guard struct {
	ctx      context.Context
	language *syntax.Language
	before   []byte

	cache *syntax.ParseCache // where before's tree comes from; nil: parsed here
	rel   string             // before's path, the cache's key

	parsed bool         // the before tree was attempted
	tree   *syntax.Tree // before's tree, nil until parsed or when it failed
	count  int          // before's syntax errors
	err    error        // why before could not be parsed or counted
}

// guardMaxBytes is the largest file the guard checks: parsing it takes
// some 150 ms a MB, and an edit is not to wait seconds for its check.
// Larger files (generated tables, data) are edited unchecked.
const guardMaxBytes = 4 << 20

// newGuard returns the guard of the file at path (its extension picks the
// grammar) whose content is before, or nil when cchub has no grammar for
// it or the file is over guardMaxBytes. It parses nothing yet.
func newGuard(ctx context.Context, path string, before []byte) *guard {
	language := syntax.LanguageFor(path)
	if language == nil || len(before) > guardMaxBytes {
		return nil
	}
	return &guard{ctx: ctx, language: language, before: before, rel: path}
}

// withCache has g take before's tree from c (nil: parse it itself), where
// a file outlined or searched earlier already has it, and returns g.
func (g *guard) withCache(c *syntax.ParseCache) *guard {
	if g != nil {
		g.cache = c
	}
	return g
}

// close frees the before tree. The guard is not to be used after.
func (g *guard) close() {
	if g == nil || g.tree == nil {
		return
	}
	g.tree.Release()
	g.tree = nil
}

// prepare parses and counts before, once.
func (g *guard) prepare() error {
	if g.parsed {
		return g.err
	}
	g.parsed = true
	var t *syntax.Tree
	var err error
	if g.cache != nil {
		t, err = g.cache.Parse(g.ctx, g.rel, g.language, g.before)
	} else {
		t, err = syntax.ParseOnce(g.ctx, g.language, g.before)
	}
	if err != nil {
		g.err = err
		return err
	}
	g.count, g.err = countErrors(g.ctx, t.RootNode())
	if g.err != nil {
		t.Release()
		return g.err
	}
	g.count += langErrors(g.language, g.before)
	g.tree = t
	return nil
}

// beforeErrors is the number of syntax errors of the file before.
func (g *guard) beforeErrors() (int, error) {
	if g == nil {
		return 0, nil
	}
	if err := g.prepare(); err != nil {
		return 0, err
	}
	return g.count, nil
}

// breaks says whether after has more syntax errors than before. It finds
// the changed bytes itself (common prefix and suffix, a memory compare)
// and reparses incrementally, as breaksEdit.
func (g *guard) breaks(after []byte) (bool, error) {
	if g == nil {
		return false, nil
	}
	start, oldEnd, newEnd := changedRange(g.before, after)
	return g.breaksEdit(after, start, oldEnd, newEnd)
}

// breaksEdit is breaks for an after that differs from before only in
// before[start:oldEnd], which became after[start:newEnd] (any range that
// covers the change will do). It reparses from before's tree, so a small
// change costs a fraction of a full parse.
//
// An incremental reparse does not always recover from errors as a fresh
// parse does (tree-sitter/tree-sitter#4001, #1645): over about 5,000
// random edits of real Go and Python files, some 0.2% of its counts
// differed from a fresh parse's, none of them changing the answer. A break
// is still confirmed by a full parse of after, so that the guard never
// refuses what a fresh parse finds no worse than before; only breaking
// edits pay for it.
func (g *guard) breaksEdit(after []byte, start, oldEnd, newEnd int) (bool, error) {
	if g == nil {
		return false, nil
	}
	n, err := g.afterErrors(after, start, oldEnd, newEnd)
	if err != nil || n <= g.count {
		return false, err
	}
	return g.breaksFull(after)
}

// afterErrors counts the syntax errors of after, which differs from before
// as breaksEdit says, by an incremental reparse.
func (g *guard) afterErrors(after []byte, start, oldEnd, newEnd int) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	if !sameOutside(g.before, after, start, oldEnd, newEnd) {
		return 0, fmt.Errorf("textedit: guard: %d..%d -> %d..%d is not the changed range", start, oldEnd, start, newEnd)
	}
	if err := g.prepare(); err != nil {
		return 0, err
	}
	return g.reparseCount(after, start, oldEnd, newEnd)
}

// breaksFull is breaks by a full parse of after, without before's tree:
// the reference the incremental path is tested and measured against.
func (g *guard) breaksFull(after []byte) (bool, error) {
	if g == nil {
		return false, nil
	}
	if err := g.prepare(); err != nil {
		return false, err
	}
	n, err := syntaxErrors(g.ctx, g.language, after)
	if err != nil {
		return false, err
	}
	return n > g.count, nil
}

// reparseCount reparses after from an edited copy of before's tree and
// counts its errors.
//
// go-tree-sitter's EditInput passes OldEndPoint as the new end point too
// (bindings.go, EditInput.c), so the edit is widened to whole lines: it
// starts at a line's start and ends after a newline (or at the end of the
// file), where both end points have column 0. Columns, which the lexer
// uses (get_column: Python's indentation), are then right everywhere; only
// the row numbers of nodes after the edit may be off, which counting never
// looks at.
func (g *guard) reparseCount(after []byte, start, oldEnd, newEnd int) (int, error) {
	before := g.before
	// Widen to whole lines; the text outside stays common to both.
	start = bytes.LastIndexByte(before[:start], '\n') + 1
	if k := bytes.IndexByte(before[oldEnd:], '\n'); k >= 0 {
		oldEnd += k + 1
		newEnd += k + 1
	} else {
		oldEnd, newEnd = len(before), len(after)
	}
	row := bytes.Count(before[:start], nl)
	pointAt := func(text []byte, from, to int) sitter.Point {
		r := row + bytes.Count(text[from:to], nl)
		return sitter.Point{Row: uint32(r), Column: uint32(to - (bytes.LastIndexByte(text[:to], '\n') + 1))}
	}
	old := g.tree.Copy()
	defer old.Close()
	old.Edit(sitter.EditInput{
		StartIndex:  uint32(start),
		OldEndIndex: uint32(oldEnd),
		NewEndIndex: uint32(newEnd),
		StartPoint:  sitter.Point{Row: uint32(row)},
		OldEndPoint: pointAt(before, start, oldEnd),
		NewEndPoint: pointAt(after, start, newEnd),
	})
	p := guardParsers.Get().(*sitter.Parser)
	defer guardParsers.Put(p)
	p.SetLanguage(g.language.Grammar)
	t, err := p.ParseCtx(context.WithoutCancel(g.ctx), old, after)
	if err != nil {
		p.Reset()
		return 0, fmt.Errorf("textedit: guard: parse %s: %w", g.language.Name, err)
	}
	defer t.Close()
	n, err := countErrors(g.ctx, t.RootNode())
	if err != nil {
		return 0, err
	}
	return n + langErrors(g.language, after), nil
}

var nl = []byte{'\n'}

// changedRange is the smallest range that covers the difference of a and
// b: a[start:aEnd] became b[start:bEnd], the rest is common.
func changedRange(a, b []byte) (start, aEnd, bEnd int) {
	const chunk = 256 // compared with memcmp, then byte by byte
	n := min(len(a), len(b))
	for start+chunk <= n && bytes.Equal(a[start:start+chunk], b[start:start+chunk]) {
		start += chunk
	}
	for start < n && a[start] == b[start] {
		start++
	}
	// The suffix may not overlap the prefix in either text.
	aEnd, bEnd = len(a), len(b)
	for aEnd-chunk >= start && bEnd-chunk >= start && bytes.Equal(a[aEnd-chunk:aEnd], b[bEnd-chunk:bEnd]) {
		aEnd -= chunk
		bEnd -= chunk
	}
	for aEnd > start && bEnd > start && a[aEnd-1] == b[bEnd-1] {
		aEnd--
		bEnd--
	}
	return start, aEnd, bEnd
}

// sameOutside says a and b differ at most in a[start:aEnd] and b[start:bEnd].
func sameOutside(a, b []byte, start, aEnd, bEnd int) bool {
	if start < 0 || start > aEnd || start > bEnd || aEnd > len(a) || bEnd > len(b) || len(a)-aEnd != len(b)-bEnd {
		return false
	}
	return bytes.Equal(a[:start], b[:start]) && bytes.Equal(a[aEnd:], b[bEnd:])
}

// pyIndentErrors counts the indentation errors of Python source as
// CPython's tokenizer and parser find them, since tree-sitter-python
// parses every one of them without an ERROR node: a statement indented
// where no block opens ("unexpected indent"), a dedent to a column that no
// enclosing block has ("unindent does not match"), a line ending in ':'
// with no indented block after it ("expected an indented block").
//
// It scans bytes (strings, comments, brackets and backslash continuations,
// so that only the starts of logical lines count) and, unlike CPython,
// goes on after an error: an unexpected indent opens a block, a bad
// dedent makes its column a level, so one misplaced line counts once or
// twice, not once per line after it. Tabs advance to the next multiple of
// 8, as CPython counts them.
func pyIndentErrors(src []byte) int {
	var (
		levels = []int{0}
		errs   int
		depth  int  // open brackets
		opened bool // the last logical line ended with ':'
		last   byte // the last significant byte of the logical line so far
		cont   bool // the last physical line ended with a backslash
	)
	n := len(src)
	for i := 0; i < n; {
		if depth == 0 && !cont {
			// A physical line that may start a logical one.
			col, j := 0, i
		indent:
			for ; j < n; j++ {
				switch src[j] {
				case ' ':
					col++
				case '\t':
					col = col/8*8 + 8
				case '\f':
					col = 0
				default:
					break indent
				}
			}
			if j == n {
				break
			}
			if c := src[j]; c == '\n' || c == '\r' || c == '#' {
				// Blank or only a comment: no logical line.
				k := bytes.IndexByte(src[j:], '\n')
				if k < 0 {
					break
				}
				i = j + k + 1
				continue
			}
			top := levels[len(levels)-1]
			switch {
			case col > top:
				if !opened {
					errs++ // unexpected indent
				}
				levels = append(levels, col)
			case col == top:
				if opened {
					errs++ // expected an indented block
				}
			default:
				if opened {
					errs++ // expected an indented block
				}
				for len(levels) > 1 && col < levels[len(levels)-1] {
					levels = levels[:len(levels)-1]
				}
				if col != levels[len(levels)-1] {
					errs++ // unindent does not match
					levels = append(levels, col)
				}
			}
			opened, last = false, 0
			i = j
		}
		cont = false
		// The rest of the physical line.
	line:
		for i < n {
			// A run of plain bytes and blanks, then one that matters.
			j := i
			for j < n && pyBytes[src[j]] != pySpecial {
				j++
			}
			for k := j - 1; k >= i; k-- {
				if pyBytes[src[k]] == pyPlain {
					last = src[k]
					break
				}
			}
			if i = j; i == n {
				break
			}
			switch c := src[i]; c {
			case '\n':
				break line
			case '#':
				k := bytes.IndexByte(src[i:], '\n')
				if k < 0 {
					i = n
				} else {
					i += k
				}
				continue
			case '"', '\'':
				i = pySkipString(src, i)
				last = c
				continue
			case '\\':
				if i+1 < n && src[i+1] == '\n' || i+2 < n && src[i+1] == '\r' && src[i+2] == '\n' {
					cont = true
					i = bytes.IndexByte(src[i:], '\n') + i
					continue
				}
				last = c
			case '(', '[', '{':
				depth++
				last = c
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
				last = c
			}
			i++
		}
		if depth == 0 && !cont && last != 0 {
			opened = last == ':'
		}
		i++ // the newline
	}
	if opened {
		errs++ // expected an indented block, at the end of the file
	}
	return errs
}

// pyBytes sorts bytes for pyIndentErrors: a blank never ends a line's
// code, a special byte changes the scanner's state.
var pyBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \t\r\f") {
		t[c] = pyBlank
	}
	for _, c := range []byte("\n#\"'\\([{)]}") {
		t[c] = pySpecial
	}
	return t
}()

const (
	pyPlain = iota
	pyBlank
	pySpecial
)

// pySkipString returns the index just after the string literal whose
// opening quote is at src[i] (any prefix is already behind). A backslash
// escapes the next byte, in raw strings too as far as where the string
// ends is concerned; a single-quoted string ends, unterminated, at the end
// of its line.
func pySkipString(src []byte, i int) int {
	q := src[i]
	n := len(src)
	triple := i+2 < n && src[i+1] == q && src[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < n {
		rest := src[j:]
		k := bytes.IndexByte(rest, q)
		if k < 0 {
			k = len(rest)
		}
		if !triple {
			if nl := bytes.IndexByte(rest[:k], '\n'); nl >= 0 {
				k = nl
			}
		}
		if b := bytes.IndexByte(rest[:k], '\\'); b >= 0 {
			j += b + 2 // an escaped byte, a newline too
			continue
		}
		j += k
		switch {
		case j >= n:
			return n
		case src[j] == '\n':
			return j // unterminated
		case !triple:
			return j + 1
		case j+2 < n && src[j+1] == q && src[j+2] == q:
			return j + 3
		}
		j++
	}
	return n
}
