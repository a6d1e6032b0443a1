package outline

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"cchub/syntax"

	sitter "github.com/smacker/go-tree-sitter"
)

// Byte bounds for the parts of an outline line: it goes into a model's
// context, so every part is clipped.
const (
	maxDocBytes    = 160
	maxSigBytes    = 120
	maxValueBytes  = 40
	maxHeaderBytes = 60
	maxImportNames = 6
)

// extractor turns one parsed file into symbols. The per-language walks
// live in lang_<name>.go, each registering a langSpec; this file holds what
// they share, and knows no language by name.
type extractor struct {
	src      []byte
	language string
	spec     langSpec
	long     int // functions longer than this list their blocks
	nodes    syntax.Nodes
}

// langSpec is what the shared code needs to know of one language.
type langSpec struct {
	// walk outlines the top-level nodes of a file.
	walk func(x *extractor, top []*syntax.Node) []*Symbol
	// directives are comment prefixes that are tool directives, not
	// documentation (Go's //go:generate).
	directives []string
	// headerEnd is what ends a block's header besides "{" (Python's ":").
	headerEnd string
	// blockEnd, if set, is the last line of a block (Python's blocks
	// swallow the comments after them).
	blockEnd func(x *extractor, n *syntax.Node) int
}

// langSpecs maps a language name to its spec; each lang_<name>.go adds
// its own in an init function.
var langSpecs = map[string]langSpec{}

func newExtractor(src []byte, language string, long int) *extractor {
	return &extractor{src: src, language: language, spec: langSpecs[language], long: long}
}

func (x *extractor) close() { x.nodes.Close() }

// root is the node of a tree's root, for the walks.
func (x *extractor) root(root *sitter.Node) *syntax.Node { return x.nodes.Root(root) }

// symbols runs the language's walk.
func (x *extractor) symbols(root *syntax.Node) []*Symbol {
	if x.spec.walk == nil {
		return nil
	}
	return x.spec.walk(x, x.kids(root))
}

// kids returns all children of n, named or not, as a tree cursor visits
// them. The slice is n's own: callers must not change it.
func (x *extractor) kids(n *syntax.Node) []*syntax.Node {
	if n == nil {
		return nil
	}
	return n.Children()
}

// kidsWhere returns the children of n whose field name keep accepts.
func (x *extractor) kidsWhere(n *syntax.Node, keep func(field string) bool) []*syntax.Node {
	var out []*syntax.Node
	for _, c := range x.kids(n) {
		if keep(c.FieldName()) {
			out = append(out, c)
		}
	}
	return out
}

// named returns the named children of n.
func (x *extractor) named(n *syntax.Node) []*syntax.Node {
	var out []*syntax.Node
	for _, c := range x.kids(n) {
		if c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// firstOfType returns the first child of n of one of the types, or nil.
func (x *extractor) firstOfType(n *syntax.Node, types ...string) *syntax.Node {
	for _, c := range x.kids(n) {
		t := c.Type()
		for _, want := range types {
			if t == want {
				return c
			}
		}
	}
	return nil
}

// modifiers returns the keywords among n's direct children (up to its
// name) that say what kind of function or member it is.
func (x *extractor) modifiers(n *syntax.Node) []string {
	var out []string
	for _, c := range x.kids(n) {
		if c.IsNamed() {
			if strings.HasSuffix(c.Type(), "modifiers") { // a node that holds the keywords
				for _, m := range x.kids(c) {
					if m.Type() == "static" || m.Type() == "async" {
						out = append(out, m.Type())
					}
				}
				continue
			}
			if c.Type() != "accessibility_modifier" && c.Type() != "decorator" {
				break // the name or parameters: modifiers come before
			}
			continue
		}
		switch c.Type() {
		case "static", "async", "get", "set":
			out = append(out, c.Type())
		}
	}
	return out
}

// hasToken reports whether n has a direct child token with this text.
func (x *extractor) hasToken(n *syntax.Node, tok string) bool {
	for _, c := range x.kids(n) {
		if !c.IsNamed() && c.Type() == tok {
			return true
		}
	}
	return false
}

func (x *extractor) text(n *syntax.Node) string {
	if n == nil {
		return ""
	}
	return string(x.src[n.StartByte():n.EndByte()])
}

// field returns the squashed text of n's child in field name, or "".
func (x *extractor) field(n *syntax.Node, name string) string {
	return squash(x.text(n.ChildByFieldName(name)))
}

func startLine(n *syntax.Node) int { return int(n.StartPoint().Row) + 1 }

// endLine is the last line n has a character on: a node that ends with
// its newline (Rust line comments, C preprocessor lines) ends on the line
// before its end point.
func endLine(n *syntax.Node) int {
	s, e := n.StartPoint(), n.EndPoint()
	if e.Column == 0 && e.Row > s.Row {
		return int(e.Row)
	}
	return int(e.Row) + 1
}

// newSym makes a symbol spanning n.
func newSym(kind, name string, n *syntax.Node) *Symbol {
	return &Symbol{Kind: kind, Name: name, StartLine: startLine(n), EndLine: endLine(n)}
}

func isComment(n *syntax.Node) bool {
	t := n.Type()
	return t == "comment" || t == "line_comment" || t == "block_comment"
}

// withDocAbove gives the symbols declared by kids[i] that have no doc of
// their own the comment above kids[i].
func (x *extractor) withDocAbove(syms []*Symbol, kids []*syntax.Node, i int) []*Symbol {
	doc := x.docAbove(kids, i)
	for _, s := range syms {
		if s.Doc == "" {
			s.Doc = doc
		}
	}
	return syms
}

// docAbove returns the first line of the comment block that sits directly
// above kids[i] (no blank line between, not trailing the code before it),
// or "".
func (x *extractor) docAbove(kids []*syntax.Node, i int) string {
	first := -1
	next := startLine(kids[i])
	for j := i - 1; j >= 0; j-- {
		c := kids[j]
		if !isComment(c) || endLine(c) < next-1 {
			break
		}
		if j > 0 && endLine(kids[j-1]) == startLine(c) && !isComment(kids[j-1]) {
			break // a trailing comment of the code before
		}
		first = j
		next = startLine(c)
	}
	if first < 0 {
		return ""
	}
	var block strings.Builder
	for j := first; j < i; j++ {
		block.WriteString(x.text(kids[j]))
		block.WriteByte('\n')
	}
	return x.docLine(block.String())
}

// trailingDoc returns the comment on the same line right after kids[i],
// as Go writes for constants and fields.
func (x *extractor) trailingDoc(kids []*syntax.Node, i int) string {
	if i+1 < len(kids) && isComment(kids[i+1]) && startLine(kids[i+1]) == endLine(kids[i]) {
		return x.docLine(x.text(kids[i+1]))
	}
	return ""
}

// docLine returns the first sentence of a comment's text, which may run
// over several lines: comment markers, tool directives and doc tags are
// skipped, and a blank line ends the search.
func (x *extractor) docLine(comment string) string {
	var lines []string
	for _, ln := range strings.Split(comment, "\n") {
		s := strings.TrimSpace(ln)
		if x.directive(s) {
			continue
		}
		for _, p := range []string{"///", "//!", "//", "/**", "/*!", "/*", "#"} {
			if strings.HasPrefix(s, p) {
				s = s[len(p):]
				break
			}
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "*/"))
		if strings.HasPrefix(s, "*") {
			s = strings.TrimSpace(s[1:])
		}
		if strings.HasPrefix(s, "@") || strings.HasPrefix(s, "+build") || strings.HasPrefix(s, "-*-") || strings.HasPrefix(s, "!") {
			continue
		}
		lines = append(lines, s)
	}
	return summary(lines)
}

// directive reports whether a comment line is a tool directive of the
// language, not documentation.
func (x *extractor) directive(line string) bool {
	for _, d := range x.spec.directives {
		if strings.HasPrefix(line, d) {
			return true
		}
	}
	return false
}

// summary is the first sentence of the first paragraph of lines, joined
// onto one line and clipped at a word boundary.
func summary(lines []string) string {
	var b strings.Builder
	for _, ln := range lines {
		ln = strings.TrimSpace(ln)
		if ln == "" {
			if b.Len() > 0 {
				break // end of the first paragraph
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ln)
		if s := b.String(); firstSentence(s) != s || strings.HasSuffix(s, ".") || b.Len() > maxDocBytes {
			break
		}
	}
	return clipWords(firstSentence(b.String()), maxDocBytes)
}

// firstSentence cuts text after its first sentence when another follows.
func firstSentence(s string) string {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && s[i+2] >= 'A' && s[i+2] <= 'Z' && !abbreviation(s[:i]) {
			return s[:i+1]
		}
	}
	return s
}

// abbreviation reports whether text before a period ends in a short
// abbreviation (e.g., i.e., etc.) rather than a sentence.
func abbreviation(before string) bool {
	for _, a := range []string{"e.g", "i.e", "etc", "vs", "cf"} {
		if strings.HasSuffix(before, a) {
			return true
		}
	}
	return false
}

// clipWords cuts s to at most n bytes at a word boundary, marking the cut.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := clipText(s, n)
	body := strings.TrimSuffix(cut, "…")
	if i := strings.LastIndexByte(body, ' '); i > n/2 {
		body = body[:i]
	}
	return strings.TrimRight(body, " ,;:") + "…"
}

// squash collapses runs of white space into one space and drops the space
// (and a trailing comma) a multi-line list leaves inside its brackets, so
// a signature fits on one line.
func squash(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			last := b.String()[b.Len()-1]
			switch {
			case (r == ')' || r == ']' || r == '}' || r == '>') && last == ',':
				// "a,\n)" → "a)": drop the trailing comma too
				str := b.String()[:b.Len()-1]
				b.Reset()
				b.WriteString(str)
				if r == '}' {
					b.WriteByte(' ')
				}
			case r == ')' || r == ']' || last == '(' || last == '[':
			default:
				b.WriteByte(' ')
			}
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// value renders an initializer briefly: its first line, squashed, clipped.
func (x *extractor) value(n *syntax.Node) string {
	if n == nil {
		return ""
	}
	t := x.text(n)
	more := false
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t, more = t[:i], true
	}
	t = squash(t)
	if more && len(t) < maxValueBytes {
		t = strings.TrimRight(t, " ") + "…"
	}
	return clipText(t, maxValueBytes)
}

// header renders a block's first line without its opening brace or colon.
func (x *extractor) header(n *syntax.Node) string {
	t := x.text(n)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	t = strings.TrimSuffix(t, "{")
	if x.spec.headerEnd != "" {
		t = strings.TrimSuffix(t, x.spec.headerEnd)
	}
	return clipText(squash(t), maxHeaderBytes)
}

var blockKinds = map[string]string{
	"if_statement": "if", "if_expression": "if", "if_let_expression": "if",
	"for_statement": "for", "for_in_statement": "for", "enhanced_for_statement": "for",
	"for_range_loop": "for", "for_expression": "for",
	"while_statement": "while", "while_expression": "while", "while_let_expression": "while",
	"loop_expression": "loop", "do_statement": "do",
	"expression_switch_statement": "switch", "type_switch_statement": "switch",
	"switch_statement": "switch", "switch_expression": "switch",
	"select_statement": "select",
	"try_statement":    "try", "try_with_resources_statement": "try",
	"with_statement":  "with",
	"match_statement": "match", "match_expression": "match",
}

// blockKindNames are the kinds blockKinds gives: a symbol of one is a
// block, not a declaration.
var blockKindNames = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range blockKinds {
		m[k] = true
	}
	return m
}()

func isBlockKind(kind string) bool { return blockKindNames[kind] }

// addBlocks lists the top-level control-flow blocks of body as children of
// s when s is longer than the threshold.
func (x *extractor) addBlocks(s *Symbol, body *syntax.Node) {
	if body == nil || s.EndLine-s.StartLine+1 <= x.long {
		return
	}
	for _, c := range x.kids(body) {
		if b := x.block(c); b != nil {
			s.Children = append(s.Children, b)
		}
	}
}

// block returns the block symbol for a control-flow statement, or nil.
func (x *extractor) block(n *syntax.Node) *Symbol {
	inner := n
	switch n.Type() {
	case "expression_statement": // a block used as a statement: `match x { ... }`
		if k := x.named(n); len(k) == 1 {
			inner = k[0]
		}
	case "labeled_statement":
		if k := x.named(n); len(k) > 0 {
			inner = k[len(k)-1]
		}
	}
	kind, ok := blockKinds[inner.Type()]
	if !ok {
		return nil
	}
	s := newSym(kind, x.header(n), n)
	if x.spec.blockEnd != nil {
		s.EndLine = x.spec.blockEnd(x, n)
	}
	return s
}

// importSummary accumulates one summary symbol per container for its imports.
type importSummary struct {
	sym   *Symbol
	names []string
}

func (im *importSummary) add(n *syntax.Node, names ...string) {
	if im.sym == nil {
		im.sym = newSym("import", "", n)
	}
	im.sym.EndLine = max(im.sym.EndLine, endLine(n))
	im.names = append(im.names, names...)
}

// emit inserts the summary, if any, into syms at its place by line.
func (im *importSummary) emit(syms []*Symbol) []*Symbol {
	if im.sym == nil {
		return syms
	}
	names := im.names
	if len(names) > maxImportNames {
		names = append(names[:maxImportNames:maxImportNames], "+"+strconv.Itoa(len(im.names)-maxImportNames)+" more")
	}
	im.sym.Name = strings.Join(names, ", ")
	i := sort.Search(len(syms), func(i int) bool { return syms[i].StartLine > im.sym.StartLine })
	syms = append(syms, nil)
	copy(syms[i+1:], syms[i:])
	syms[i] = im.sym
	return syms
}

func trimQuotes(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'' || s[0] == '`') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// syntaxErrors returns the merged line ranges of ERROR and MISSING nodes.
func (x *extractor) syntaxErrors(root *syntax.Node) []LineRange {
	if !root.HasError() {
		return nil
	}
	var rs []LineRange
	var walk func(n *syntax.Node)
	walk = func(n *syntax.Node) {
		switch {
		case n.IsMissing():
			l := startLine(n)
			rs = append(rs, LineRange{l, l})
		case n.IsError():
			rs = append(rs, LineRange{startLine(n), max(startLine(n), endLine(n))})
		case n.HasError():
			for _, c := range x.kids(n) {
				walk(c)
			}
		}
	}
	walk(root)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	var out []LineRange
	for _, r := range rs {
		if len(out) > 0 && r.Start <= out[len(out)-1].End+1 {
			out[len(out)-1].End = max(out[len(out)-1].End, r.End)
			continue
		}
		out = append(out, r)
	}
	return out
}
