package structsearch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/syntax"
)

// ErrBadPattern is wrapped by every error about a pattern itself.
var ErrBadPattern = errors.New("bad pattern")

// expando stands in for '$' while a pattern is parsed: it is a letter in
// every grammar's identifiers, so `$X` parses as the identifier `µX`.
const expando = "µ"

// Pattern is a pattern compiled for one language.
type Pattern struct {
	Source  string
	Lang    *syntax.Language
	Context string // the wrapping context that accepted it

	root  *pnode
	runs  [][]string // literal tokens that stand next to each other
	twin  *twinRuns  // `P $X R $X`, for the prefilter; nil: none
	lits  [][]byte   // the literal tokens of three bytes or more, for a token index
	query *sitter.Query
	// seq patterns are several statements: root is a "sequence" whose
	// kids are the statements, matched against runs of the children of
	// the kinds of container in kinds.
	seq   bool
	kinds map[string]bool // the kinds of node a match can be (or, for seq, be in)
}

// pnode is one node of a compiled pattern.
type pnode struct {
	kind  string
	text  string // leaf or gap text; "" for inner nodes
	leaf  bool
	gap   bool   // text inside the parent that no child covers: text, or a meta
	meta  string // metavariable name without '$'s; "" if not one
	multi bool   // $$$NAME
	kids  []*pnode
	// free[i] says kids[i:] hold no metavariable that occurs elsewhere in
	// the pattern (see list).
	free []bool
}

var (
	metaRef      = regexp.MustCompile(`\$(\$\$)?([A-Za-z_][A-Za-z0-9_]*)?`)
	metaName     = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	identRune    = regexp.MustCompile(`[\p{L}\p{N}_]$`)
	identRuneAft = regexp.MustCompile(`^[\p{L}\p{N}_]`)
)

// Compile parses source as a pattern for lang. Each wrapping context is
// tried in order; the first whose parse holds the fragment as one clean
// node, or as consecutive statements of one block (a sequence), wins. Failing that, a loose reading is used: one whose only errors
// are `$$$` standing where the grammar wants a statement, member or
// parameter (the grammar cannot know it stands for several), or one that
// holds the fragment without its trailing `;`. Only when nothing else
// parses is a reading used that misread the fragment (a call read as a
// type conversion, a keyword read as a name).
//
// Every loop of it looks at ctx (see steps): when ctx is done, Compile
// returns an error wrapping ctx's error, and nothing it started goes on.
func Compile(ctx context.Context, source string, language *syntax.Language) (*Pattern, error) {
	st := newSteps(ctx)
	rewritten, err := prepare(st, source)
	if err != nil {
		return nil, err
	}
	g := grammarOf(language.Grammar)
	var tries []string
	var loose, misread *Pattern
	for _, w := range contexts[language.Name] {
		r := compileIn(st, rewritten, w, language, g)
		if st.stopped() {
			return nil, st.stopError(source)
		}
		if r.p == nil {
			tries = append(tries, fmt.Sprintf("%s: %s", w.name, r.why))
			continue
		}
		r.p.Source = source
		switch {
		case r.misread != "":
			if misread == nil {
				misread = r.p
			}
			tries = append(tries, fmt.Sprintf("%s: %s", w.name, r.misread))
		case r.loose:
			if loose == nil {
				loose = r.p
			}
		default:
			return r.p.finish(st, source)
		}
	}
	if loose != nil {
		return loose.finish(st, source)
	}
	if misread != nil {
		return misread.finish(st, source)
	}
	return nil, &invalidError{source: source, language: language.Name, tries: tries}
}

// invalidError says a pattern is valid in no context of a language, and
// where each context's parse broke.
type invalidError struct {
	source, language string
	tries            []string // context: why not
}

func (e *invalidError) Error() string {
	return fmt.Sprintf("%v: `%s` is not valid %s in any context cchub tries (%s); check its syntax, or set lang to the language it is written in",
		ErrBadPattern, e.source, e.language, strings.Join(e.tries, "; "))
}

func (e *invalidError) Unwrap() error { return ErrBadPattern }

// steps lets every loop of compiling a pattern look at its context: one
// look every stepsPerLook steps, so a pattern of a million tokens is
// stopped as promptly as a small one. Once the context is done, stop says
// so to every loop, which ends early; Compile then returns stopError.
type steps struct {
	ctx context.Context
	n   int
	err error
}

const stepsPerLook = 1024

func newSteps(ctx context.Context) *steps { return &steps{ctx: ctx} }

// stop counts one step and says whether to stop.
func (s *steps) stop() bool {
	if s.err != nil {
		return true
	}
	s.n++
	if s.n%stepsPerLook == 0 {
		s.err = s.ctx.Err()
	}
	return s.err != nil
}

// stopped says whether the context was found done, looking at it now.
func (s *steps) stopped() bool {
	if s.err == nil {
		s.err = s.ctx.Err()
	}
	return s.err != nil
}

// stopError is Compile's error once stopped: the context's error, and
// what to do.
func (s *steps) stopError(source string) error {
	return fmt.Errorf("structsearch: compiling the pattern (%d bytes) was stopped: %w; a pattern that long takes long to compile: give the shape of the code with $X standing for its parts",
		len(source), s.err)
}

// prepare checks what is wrong with a pattern in any language and returns
// it with its metavariables rewritten for parsing.
func prepare(st *steps, source string) (string, error) {
	frag := strings.TrimSpace(dedent(source))
	if frag == "" {
		return "", fmt.Errorf("%w: the pattern is empty; give code with $NAME where anything may stand, e.g. `$A.Close()`", ErrBadPattern)
	}
	if strings.Contains(frag, expando) {
		return "", fmt.Errorf("%w: the pattern contains %q, which cchub reserves for metavariables", ErrBadPattern, expando)
	}
	if d := bracketDepth(frag); d > maxPatternNesting {
		return "", fmt.Errorf("%w: the pattern nests brackets %d deep, more than the %d a pattern may (compiling it costs the square of its depth); give the shape of the code with less of it, $X standing for what is inside", ErrBadPattern, d, maxPatternNesting)
	}
	if st.stopped() {
		return "", st.stopError(source)
	}
	return rewriteMetas(st, frag)
}

// maxPatternNesting bounds how deep a pattern's brackets nest: real code
// quoted as a pattern stays far below it, and a pattern made to stress
// the parser (50,000 parentheses) is refused before it is parsed.
const maxPatternNesting = 200

// bracketDepth is the deepest nesting of (), [] and {} in s, counted
// without regard to strings: a bound, not a parse.
func bracketDepth(s string) int {
	depth, most := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
			most = max(most, depth)
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return most
}

// dedent removes the indentation all the lines of s share, blank lines
// aside: statements copied from inside a function keep their own, and
// Python reads them as a block.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	common := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		switch {
		case first:
			common, first = indent, false
		default:
			for !strings.HasPrefix(indent, common) {
				common = common[:len(common)-1]
			}
		}
	}
	if common == "" {
		return s
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, common)
	}
	return strings.Join(lines, "\n")
}

// rewriteMetas replaces $NAME, $$$NAME, $_ and $$$ with identifiers the
// grammar accepts, refusing lower-case names and metavariables glued to
// other identifier characters.
func rewriteMetas(st *steps, frag string) (string, error) {
	var b strings.Builder
	last := 0
	for _, m := range metaRef.FindAllStringSubmatchIndex(frag, -1) {
		if st.stop() {
			return "", st.stopError(frag)
		}
		whole := frag[m[0]:m[1]]
		multi := m[2] >= 0
		name := ""
		if m[4] >= 0 {
			name = frag[m[4]:m[5]]
		}
		switch {
		case name == "" && !multi:
			continue // a lone '$' is the language's own (jQuery's $, a shell string)
		case name != "" && !metaName.MatchString(name):
			return "", fmt.Errorf("%w: `%s`: metavariable names are upper case ([A-Z_][A-Z0-9_]*); write %s",
				ErrBadPattern, whole, strings.ToUpper(whole))
		}
		// The rune before and the rune after: a regexp anchored at the end
		// of frag[:m[0]] would scan all of it, for every metavariable.
		before, _ := utf8.DecodeLastRuneInString(frag[:m[0]])
		after, _ := utf8.DecodeRuneInString(frag[m[1]:])
		if m[0] > 0 && isIdentRune(before) || m[1] < len(frag) && isIdentRune(after) {
			return "", fmt.Errorf("%w: `%s` is glued to other characters of one token (%q); a metavariable stands for a whole node, such as a whole identifier or expression",
				ErrBadPattern, whole, tokenAround(frag, m[0], m[1]))
		}
		b.WriteString(frag[last:m[0]])
		b.WriteString(strings.ReplaceAll(whole, "$", expando))
		last = m[1]
	}
	b.WriteString(frag[last:])
	return b.String(), nil
}

// isIdentRune says r is a letter, a digit or '_': what identRune and
// identRuneAft match.
func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func tokenAround(s string, start, end int) string {
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:start])
		if !identRune.MatchString(string(r)) && r != '$' {
			break
		}
		start -= n
	}
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !identRuneAft.MatchString(string(r)) {
			break
		}
		end += n
	}
	return s[start:end]
}

// build turns a parsed node into a pattern node, recognising
// metavariables and keeping only the children that count, and the text
// between them that no child covers (a string's content).
func build(st *steps, n *sitter.Node, src []byte, g *grammar) *pnode {
	if st.stop() {
		return &pnode{kind: n.Type()} // Compile returns the context's error
	}
	text := n.Content(src)
	if name, multi, ok := metaText(strings.TrimSpace(text)); ok {
		// The metavariable itself, or a node that only wraps it (an
		// expression statement, a one-element list, a hole).
		if n.ChildCount() == 0 || onlyWraps(n, src, g) {
			return &pnode{kind: n.Type(), meta: name, multi: multi}
		}
	}
	if t := strings.TrimSpace(text); strings.HasSuffix(t, ";") {
		// `$$$;`, a statement of its own: any statements.
		u := strings.TrimSpace(strings.TrimSuffix(t, ";"))
		if name, multi, ok := metaText(u); ok && multi && wrapsOnly(n, src, g, u) {
			return &pnode{kind: n.Type(), meta: name, multi: multi}
		}
	}
	k := g.kind(n)
	p := &pnode{kind: k.name}
	if n.ChildCount() == 0 {
		p.leaf, p.text = true, unexpand(text)
		return p
	}
	at := n.StartByte()
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if gap, ok := gapText(src[at:c.StartByte()], k); ok {
			p.kids = append(p.kids, gapNode(gap))
		}
		if significant(c, src, g) {
			p.kids = append(p.kids, build(st, c, src, g))
		}
		at = max(at, c.EndByte())
	}
	if gap, ok := gapText(src[at:n.EndByte()], k); ok {
		p.kids = append(p.kids, gapNode(gap))
	}
	return p
}

// gapNode is a pattern node for text that no child covers. When the text
// is one metavariable (Go's `"$PATH"`, whose content is no node), it
// captures that text.
func gapNode(text string) *pnode {
	if name, multi, ok := metaText(text); ok {
		return &pnode{gap: true, meta: name, multi: multi}
	}
	return &pnode{gap: true, text: unexpand(text)}
}

// gapText says whether text between the children of a node of kind k
// counts, and as what: inside a string, as it is; elsewhere, any
// non-blank text, trimmed.
func gapText(b []byte, k *kindInfo) (string, bool) {
	if len(b) == 0 {
		return "", false
	}
	if k.stringy {
		return string(b), true
	}
	t := strings.TrimSpace(string(b))
	return t, t != ""
}

// unexpand gives text that is not a metavariable its dollars back (a
// `"$HOME"` in a Go pattern is a string, not a capture).
func unexpand(s string) string {
	return strings.ReplaceAll(s, expando, "$")
}

// onlyWraps says n's text is that of its one significant child.
func onlyWraps(n *sitter.Node, src []byte, g *grammar) bool {
	return wrapsOnly(n, src, g, strings.TrimSpace(n.Content(src)))
}

// soleChild is n's one significant child, or nil when it has none or
// several.
func soleChild(n *sitter.Node, src []byte, g *grammar) *sitter.Node {
	var only *sitter.Node
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if !significant(c, src, g) {
			continue
		}
		if only != nil {
			return nil
		}
		only = c
	}
	return only
}

func metaText(s string) (name string, multi, ok bool) {
	if !strings.HasPrefix(s, expando) {
		return "", false, false
	}
	rest := s[len(expando):]
	if strings.HasPrefix(rest, expando+expando) {
		multi, rest = true, rest[2*len(expando):]
	}
	if rest == "" {
		return "_", multi, multi // `$$$`; a lone expando is not a metavariable
	}
	if !metaName.MatchString(rest) {
		return "", false, false
	}
	return rest, multi, true
}

// significant says whether a child counts when trees are compared:
// comments, separators and layout tokens do not.
func significant(n *sitter.Node, src []byte, g *grammar) bool {
	k := g.kind(n)
	if k.comment {
		return false
	}
	if k.named {
		return true
	}
	return countsAsToken(src[n.StartByte():n.EndByte()])
}

// countsAsToken says whether an anonymous token's text counts: commas,
// semicolons and layout (Go's newline terminator, Python's indents) do not.
func countsAsToken(b []byte) bool {
	if len(b) == 1 && (b[0] == ',' || b[0] == ';') {
		return false
	}
	for _, c := range b {
		if !isSpace(c) {
			return true
		}
	}
	return false
}

// finish derives what matching needs besides the tree: the literal token
// runs for the prefilter and the query that finds candidate nodes.
func (p *Pattern) finish(st *steps, source string) (*Pattern, error) {
	var run []string
	var flat []flatItem
	flush := func() {
		if len(run) > 0 {
			p.runs = append(p.runs, run)
		}
		run = nil
	}
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if st.stop() {
			return
		}
		switch {
		case n.meta != "":
			flush()
			flat = append(flat, flatItem{run: -1, meta: n.meta, multi: n.multi, barrier: n.gap})
		case n.gap:
			// Inside a string nothing is skipped, so a gap stands alone.
			flush()
			p.runs = append(p.runs, []string{n.text})
			flat = append(flat, flatItem{run: -1, barrier: true})
		case n.leaf:
			if n.text == "" {
				return
			}
			if p.skipFiller([]byte(n.text), 0) > 0 {
				// A token that starts like layout or a comment (a
				// string's " a" or "// b") cannot be found by skipping
				// layout up to it.
				flush()
			}
			run = append(run, n.text)
			flat = append(flat, flatItem{run: len(p.runs)}) // the index run gets when flushed
		default:
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(p.root)
	flush()
	if !p.seq {
		p.twin = findTwin(flat)
	}
	have := map[string]bool{}
	for _, run := range p.runs {
		for _, tok := range run {
			if len(tok) >= 3 && !have[tok] {
				have[tok] = true
				p.lits = append(p.lits, []byte(tok))
			}
		}
	}
	markFree(st, p.root)
	if st.stopped() {
		return nil, st.stopError(source)
	}
	q := "(_) @n"
	switch {
	case p.seq:
		// Every kind of container the grammar has.
		g := grammarOf(p.Lang.Grammar)
		p.kinds = map[string]bool{}
		for _, k := range g.kinds {
			if _, ok := seqContainers[p.Lang.Name][k.name]; ok && k.named {
				p.kinds[k.name] = true
			}
		}
		var alts []string
		for k := range p.kinds {
			alts = append(alts, "("+k+")")
		}
		sort.Strings(alts)
		q = fmt.Sprintf("[%s] @n", strings.Join(alts, " "))
	case p.root.meta == "":
		p.kinds = map[string]bool{p.root.kind: true}
		q = fmt.Sprintf("(%s) @n", p.root.kind)
		if !isNamedKind(p.root.kind) || !grammarOf(p.Lang.Grammar).hasNamed(p.root.kind) {
			// A token (Python's bare `return` is its keyword).
			q = fmt.Sprintf("%q @n", p.root.kind)
		}
	}
	query, err := sitter.NewQuery([]byte(q), p.Lang.Grammar)
	if err != nil {
		return nil, fmt.Errorf("structsearch: query %s for %s: %w", q, p.Lang.Name, err)
	}
	p.query = query
	return p, nil
}

// markFree sets free on every node of the pattern rooted at root, in two
// walks: the capturing metavariables' occurrences are numbered in
// preorder, each name's first and last noted; kids[i:] of a node cover
// one range of those numbers, and are free when every name they hold has
// its first and last occurrence inside it. (Counting each name under
// every node took time of the pattern's size times its depth.)
func markFree(st *steps, root *pnode) {
	first, last := map[string]int{}, map[string]int{}
	k := 0
	var number func(n *pnode)
	number = func(n *pnode) {
		if st.stop() {
			return
		}
		if n.meta != "" && n.meta != "_" {
			if _, ok := first[n.meta]; !ok {
				first[n.meta] = k
			}
			last[n.meta] = k
			k++
		}
		for _, c := range n.kids {
			number(c)
		}
	}
	number(root)
	k = 0
	// mark returns the least first and the greatest last occurrence of
	// the names under n (MaxInt and -1 when there are none).
	var mark func(n *pnode) (lo, hi int)
	mark = func(n *pnode) (lo, hi int) {
		lo, hi = math.MaxInt, -1
		if st.stop() {
			return lo, hi
		}
		if n.meta != "" && n.meta != "_" {
			lo, hi = first[n.meta], last[n.meta]
			k++
		}
		if len(n.kids) == 0 {
			return lo, hi
		}
		starts, los, his := make([]int, len(n.kids)), make([]int, len(n.kids)), make([]int, len(n.kids))
		for i, c := range n.kids {
			starts[i] = k
			los[i], his[i] = mark(c)
		}
		end := k
		n.free = make([]bool, len(n.kids))
		runLo, runHi := math.MaxInt, -1
		for i := len(n.kids) - 1; i >= 0; i-- {
			runLo, runHi = min(runLo, los[i]), max(runHi, his[i])
			n.free[i] = runLo >= starts[i] && runHi < end
		}
		return min(lo, runLo), max(hi, runHi)
	}
	mark(root)
}

func isNamedKind(k string) bool {
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return k != ""
}

// Close frees the pattern's compiled query.
func (p *Pattern) Close() {
	if p.query != nil {
		p.query.Close()
		p.query = nil
	}
}

// String shows the pattern as the matcher sees it, for tests and
// debugging.
func (p *Pattern) String() string {
	var b strings.Builder
	var walk func(n *pnode)
	walk = func(n *pnode) {
		switch {
		case n.meta != "" && n.multi:
			fmt.Fprintf(&b, "$$$%s", n.meta)
		case n.meta != "":
			fmt.Fprintf(&b, "$%s", n.meta)
		case n.gap:
			fmt.Fprintf(&b, "~%q", n.text)
		case n.leaf:
			fmt.Fprintf(&b, "%q", n.text)
		default:
			fmt.Fprintf(&b, "(%s", n.kind)
			for _, k := range n.kids {
				b.WriteByte(' ')
				walk(k)
			}
			b.WriteByte(')')
		}
	}
	walk(p.root)
	return b.String()
}
