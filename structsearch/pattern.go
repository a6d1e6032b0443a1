package structsearch

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/workspace"
)

// ErrBadPattern is wrapped by every error about a pattern itself.
var ErrBadPattern = errors.New("bad pattern")

// expando stands in for '$' while a pattern is parsed: it is a letter in
// every grammar's identifiers, so `$X` parses as the identifier `µX`.
const expando = "µ"

// Pattern is a pattern compiled for one language.
type Pattern struct {
	Source  string
	Lang    *workspace.Language
	Context string // the wrapping context that accepted it

	root  *pnode
	runs  [][]string // literal tokens that stand next to each other
	query *sitter.Query
}

// pnode is one node of a compiled pattern.
type pnode struct {
	kind  string
	text  string // leaf text; "" for inner nodes
	leaf  bool
	meta  string // metavariable name without '$'s; "" if not one
	multi bool   // $$$NAME
	kids  []*pnode
}

var (
	metaRef      = regexp.MustCompile(`\$(\$\$)?([A-Za-z_][A-Za-z0-9_]*)?`)
	metaName     = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	identRune    = regexp.MustCompile(`[\p{L}\p{N}_]$`)
	identRuneAft = regexp.MustCompile(`^[\p{L}\p{N}_]`)
)

// Compile parses source as a pattern for lang.
func Compile(source string, lang *workspace.Language) (*Pattern, error) {
	frag := strings.TrimSpace(source)
	if frag == "" {
		return nil, fmt.Errorf("%w: the pattern is empty; give code with $NAME where anything may stand, e.g. `$A.Close()`", ErrBadPattern)
	}
	if strings.Contains(frag, expando) {
		return nil, fmt.Errorf("%w: the pattern contains %q, which cchub reserves for metavariables", ErrBadPattern, expando)
	}
	rewritten, err := rewriteMetas(frag)
	if err != nil {
		return nil, err
	}
	var tries []string
	var misread *Pattern
	for _, w := range contexts[lang.Name] {
		p, why := compileIn(rewritten, w, lang)
		if p == nil {
			tries = append(tries, fmt.Sprintf("%s: %s", w.name, why))
			continue
		}
		p.Source = source
		if misreadKinds[lang.Name][p.root.kind] {
			if misread == nil {
				misread = p
			}
			tries = append(tries, fmt.Sprintf("%s: read as %s", w.name, p.root.kind))
			continue
		}
		return p.finish()
	}
	if misread != nil {
		return misread.finish()
	}
	return nil, fmt.Errorf("%w: `%s` is not valid %s in any context cchub tries (%s); check the syntax, or pass the right language with -l",
		ErrBadPattern, source, lang.Name, strings.Join(tries, "; "))
}

// rewriteMetas replaces $NAME, $$$NAME, $_ and $$$ with identifiers the
// grammar accepts, refusing lower-case names and metavariables glued to
// other identifier characters.
func rewriteMetas(frag string) (string, error) {
	var b strings.Builder
	last := 0
	for _, m := range metaRef.FindAllStringSubmatchIndex(frag, -1) {
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
			return "", fmt.Errorf("%w: `%s`: metavariable names are upper case ([A-Z_][A-Z0-9_]*); write $%s", ErrBadPattern, whole, strings.ToUpper(name))
		}
		if identRune.MatchString(frag[:m[0]]) || identRuneAft.MatchString(frag[m[1]:]) {
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

// compileIn parses the fragment in one wrapping context. It returns nil and
// a reason when the context does not hold the fragment as one clean node.
func compileIn(frag string, w wrap, lang *workspace.Language) (*Pattern, string) {
	src, start, end := w.place(frag)
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(lang.Grammar)
	tree, err := parser.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		return nil, err.Error()
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		return nil, "syntax error " + errorWhere(root, []byte(src), start, frag)
	}
	n := spanning(root, uint32(start), uint32(end))
	if n == nil {
		return nil, "not one node (several statements or declarations?)"
	}
	p := &Pattern{Lang: lang, Context: w.name, root: build(n, []byte(src))}
	return p, ""
}

// errorWhere describes the first error or missing node, in the fragment's
// own coordinates.
func errorWhere(root *sitter.Node, src []byte, start int, frag string) string {
	var bad *sitter.Node
	var find func(n *sitter.Node)
	find = func(n *sitter.Node) {
		if bad != nil || !n.HasError() && !n.IsMissing() {
			return
		}
		if n.IsError() || n.IsMissing() {
			bad = n
			return
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			find(n.Child(i))
		}
	}
	find(root)
	if bad == nil {
		return ""
	}
	off := int(bad.StartByte()) - start
	if off < 0 || off > len(frag) {
		return "at its end: the pattern stops before the construct it starts is complete"
	}
	line := 1 + strings.Count(frag[:off], "\n")
	col := off - strings.LastIndex(frag[:off], "\n")
	near := strings.ReplaceAll(frag[off:min(len(frag), off+20)], expando, "$")
	if bad.IsMissing() {
		return fmt.Sprintf("at %d:%d (missing %s before `%s`)", line, col, bad.Type(), near)
	}
	return fmt.Sprintf("at %d:%d near `%s`", line, col, near)
}

// spanning returns the deepest node covering exactly [start, end), or nil.
func spanning(n *sitter.Node, start, end uint32) *sitter.Node {
	var found *sitter.Node
	for n != nil {
		if n.StartByte() == start && n.EndByte() == end {
			found = n
		}
		var next *sitter.Node
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			if c.StartByte() <= start && c.EndByte() >= end {
				next = c
				break
			}
		}
		n = next
	}
	return found
}

// build turns a parsed node into a pattern node, recognising
// metavariables and keeping only the children that count.
func build(n *sitter.Node, src []byte) *pnode {
	text := n.Content(src)
	if name, multi, ok := metaText(text); ok {
		// The metavariable itself, or a node that only wraps it (an
		// expression statement, a one-element list).
		if n.ChildCount() == 0 || onlyWraps(n, src, text) {
			return &pnode{kind: n.Type(), meta: name, multi: multi}
		}
	}
	p := &pnode{kind: n.Type()}
	if n.ChildCount() == 0 {
		p.leaf, p.text = true, text
		return p
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if significant(c, src) {
			p.kids = append(p.kids, build(c, src))
		}
	}
	return p
}

// onlyWraps says n has one significant child, whose text is n's text.
func onlyWraps(n *sitter.Node, src []byte, text string) bool {
	var only *sitter.Node
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		if !significant(c, src) {
			continue
		}
		if only != nil {
			return false
		}
		only = c
	}
	return only != nil && only.Content(src) == text
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
func significant(n *sitter.Node, src []byte) bool {
	t := n.Type()
	if strings.Contains(t, "comment") {
		return false
	}
	if n.IsNamed() {
		return true
	}
	s := n.Content(src)
	return s != "," && s != ";" && strings.TrimSpace(s) != ""
}

// finish derives what matching needs besides the tree: the literal token
// runs for the prefilter and the query that finds candidate nodes.
func (p *Pattern) finish() (*Pattern, error) {
	var run []string
	var walk func(n *pnode)
	walk = func(n *pnode) {
		switch {
		case n.meta != "":
			if len(run) > 0 {
				p.runs = append(p.runs, run)
			}
			run = nil
		case n.leaf:
			if n.text != "" {
				run = append(run, n.text)
			}
		default:
			for _, k := range n.kids {
				walk(k)
			}
		}
	}
	walk(p.root)
	if len(run) > 0 {
		p.runs = append(p.runs, run)
	}
	q := "(_) @n"
	if p.root.meta == "" {
		q = fmt.Sprintf("(%s) @n", p.root.kind)
		if !isNamedKind(p.root.kind) {
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
