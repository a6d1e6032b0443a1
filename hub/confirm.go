package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"cchub/codegraph"
	"cchub/lspmux"
)

// confirmBudget is how long a confirmation may take when its caller
// gives no budget; confirmParallel is how many questions it has out at
// once (a server answers a few at a time; more only queue).
const (
	confirmBudget   = 20 * time.Second
	confirmParallel = 6
)

// Confirmer returns a codegraph.Confirmer that asks the workspace's
// language servers (started as the hub starts them, on first need) where
// each edge's call goes, within budget (0: 20 s) counted from each call.
//
// An edge is confirmed when the server's definition of the call lands in
// the callee, or, for a call through an interface (a Go interface method,
// a TypeScript interface member), when the callee is among the
// implementations. It is refuted only when the server is definite that
// the call goes elsewhere and cannot reach the callee at run time: in Go,
// a call that resolves to another function or method (an interface
// method's implementations are all known to gopls); in Python, a call
// that resolves to another function, a class, or a method of a class the
// callee's class does not derive from (a Protocol never refutes); in
// TypeScript and JavaScript, a call that resolves to another plain
// function. Anything else (no definition, a call through a variable or a
// field, a method a subclass may override, a language cchub does not
// judge, no server, out of time) is left unanswered, and the note says
// why.
func (h *Hub) Confirmer(budget time.Duration) codegraph.Confirmer {
	if budget <= 0 {
		budget = confirmBudget
	}
	return func(ctx context.Context, edges []codegraph.Edge) ([]string, string) {
		c := &confirmer{h: h, budget: budget, batches: map[string]*openBatch{}, ancestry: map[string]*classAncestry{}}
		return c.run(ctx, edges)
	}
}

// confirmer is one confirmation: the files opened on their servers, and
// what it learnt of Python classes, shared by its edges.
type confirmer struct {
	h      *Hub
	budget time.Duration
	mux    *lspmux.Mux
	index  *codegraph.Index

	mu       sync.Mutex
	batches  map[string]*openBatch
	ancestry map[string]*classAncestry
}

// openBatch is a file told to its server once, for all the questions
// about it.
type openBatch struct {
	done chan struct{}
	b    *lspmux.Batch
	err  error
}

func (c *confirmer) run(parent context.Context, edges []codegraph.Edge) ([]string, string) {
	verdicts := make([]string, len(edges))
	why := make([]string, len(edges))
	if len(edges) == 0 {
		return verdicts, ""
	}
	mux, err := c.h.servers()
	if err != nil {
		for i := range why {
			why[i] = err.Error()
		}
		return verdicts, unansweredNote(verdicts, why)
	}
	c.mux = mux
	c.index = c.h.codeGraph(parent)
	ctx, cancel := context.WithTimeout(parent, c.budget)
	defer cancel()

	// One file's edges go out together, so that its server works on one
	// package at a time.
	order := make([]int, len(edges))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ea, eb := edges[order[a]], edges[order[b]]
		if ea.Path != eb.Path {
			return ea.Path < eb.Path
		}
		return ea.Line < eb.Line
	})
	sem := make(chan struct{}, confirmParallel)
	var wg sync.WaitGroup
	for _, i := range order {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			verdicts[i], why[i] = c.edge(ctx, edges[i])
		}(i)
	}
	wg.Wait()
	c.mu.Lock()
	for _, ob := range c.batches {
		if ob.b != nil {
			ob.b.Close()
		}
	}
	c.mu.Unlock()
	if ctx.Err() != nil {
		stopped := fmt.Sprintf("out of time after %v", c.budget)
		if parent.Err() != nil {
			stopped = "the call was cancelled"
		}
		for i := range why {
			if verdicts[i] == "" && (why[i] == "" || why[i] == errOutOfTime) {
				why[i] = stopped
			}
		}
	}
	return verdicts, unansweredNote(verdicts, why)
}

// errOutOfTime marks an edge whose questions the budget cut short.
const errOutOfTime = "out of time"

// unansweredNote says how many edges went unanswered and why, the most
// common reason first: "12 of 40 edges unconfirmed: 7 no language server
// for .rs files; 5 out of time after 20s".
func unansweredNote(verdicts, why []string) string {
	count := map[string]int{}
	n := 0
	for i, v := range verdicts {
		if v != "" {
			continue
		}
		n++
		w := why[i]
		if w == "" {
			w = "no answer"
		}
		count[w]++
	}
	if n == 0 {
		return ""
	}
	reasons := make([]string, 0, len(count))
	for w := range count {
		reasons = append(reasons, w)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if count[reasons[i]] != count[reasons[j]] {
			return count[reasons[i]] > count[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	parts := make([]string, len(reasons))
	for i, w := range reasons {
		parts[i] = fmt.Sprintf("%d %s", count[w], w)
	}
	return fmt.Sprintf("%d of %d edges unconfirmed: %s", n, len(verdicts), strings.Join(parts, "; "))
}

// batch is rel opened on its server, once per confirmation.
func (c *confirmer) batch(ctx context.Context, rel string) (*lspmux.Batch, error) {
	c.mu.Lock()
	ob := c.batches[rel]
	if ob == nil {
		ob = &openBatch{done: make(chan struct{})}
		c.batches[rel] = ob
		c.mu.Unlock()
		ob.b, ob.err = c.mux.Batch(ctx, rel)
		close(ob.done)
		return ob.b, ob.err
	}
	c.mu.Unlock()
	select {
	case <-ob.done:
		return ob.b, ob.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// why is the reason, in words, that err left an edge in rel unanswered.
func (c *confirmer) why(ctx context.Context, rel string, err error) string {
	var un *lspmux.Unavailable
	switch {
	case ctx.Err() != nil:
		return errOutOfTime
	case errors.Is(err, lspmux.ErrNoServer):
		return fmt.Sprintf("no language server for %s files", extOf(rel))
	case errors.As(err, &un):
		return un.Error()
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if strings.Contains(msg, "no package metadata") {
		// One reason for many files: say it once, without their paths.
		return "gopls does not build the file here (a build constraint, another platform, an ignored directory)"
	}
	// Places as the workspace names them, not as URIs.
	msg = strings.ReplaceAll(msg, "file://"+filepath.ToSlash(c.h.Root.Dir())+"/", "")
	return "the language server failed: " + msg
}

// isTS says whether rel is TypeScript or JavaScript.
func isTS(rel string) bool {
	switch path.Ext(rel) {
	case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
		return true
	}
	return false
}

func extOf(rel string) string {
	if e := path.Ext(rel); e != "" {
		return e
	}
	return path.Base(rel)
}

// Reasons an edge is left unanswered after the server answered.
const (
	whyNoDefinition = "no definition found at the call site"
	whyStale        = "the call site changed since the graph read it"
	whyValue        = "called through a value (a variable, field or parameter) whose target the server does not know"
	whyDispatch     = "the call may dispatch to the callee at run time (an override or a structural type)"
	whyNoCallee     = "the call has no callee"
)

// edge judges one edge.
func (c *confirmer) edge(ctx context.Context, e codegraph.Edge) (string, string) {
	if e.Callee == nil {
		return "", whyNoCallee
	}
	b, err := c.batch(ctx, e.Path)
	if err != nil {
		return "", c.why(ctx, e.Path, err)
	}
	line, col, ok := charPlace(b.Text(), e.Line, e.Col, e.Name)
	if !ok {
		return "", whyStale
	}
	at := func(op string) (*lspmux.Answer, error) {
		return b.Query(ctx, lspmux.Query{Op: op, Line: line, Col: col})
	}
	def, err := at("definition")
	if err != nil {
		return "", c.why(ctx, e.Path, err)
	}
	if lands(def.Locations, e.Callee) {
		return codegraph.Confirmed, ""
	}
	ts := isTS(e.Path)
	if len(def.Locations) == 0 && len(def.Outside) == 0 && ts {
		// tsserver loads its project after it answers: until then a name
		// from another file has no definition, though hover knows it.
		if hv, err := at("hover"); err == nil && hv.Text != "" {
			for wait := 250 * time.Millisecond; wait <= time.Second; wait *= 2 {
				select {
				case <-ctx.Done():
					return "", errOutOfTime
				case <-time.After(wait):
				}
				if def, err = at("definition"); err != nil {
					return "", c.why(ctx, e.Path, err)
				}
				if len(def.Locations)+len(def.Outside) > 0 {
					break
				}
			}
		}
		if lands(def.Locations, e.Callee) {
			return codegraph.Confirmed, ""
		}
	}
	if len(def.Locations) == 0 && len(def.Outside) == 0 {
		return "", whyNoDefinition
	}
	if ts {
		return c.tsEdge(ctx, e, at)
	}
	switch path.Ext(e.Path) {
	case ".go":
		return c.goEdge(ctx, e, def, at)
	case ".py", ".pyi":
		return c.pyEdge(ctx, e, def, at)
	}
	return "", fmt.Sprintf("the definition of a call in a %s file is elsewhere, and cchub does not judge what may dispatch there", extOf(e.Path))
}

// goEdge judges a Go call whose definition is not the callee: through an
// interface, gopls knows every implementation; otherwise there is no
// dispatch, so another function or method is a refutation.
func (c *confirmer) goEdge(ctx context.Context, e codegraph.Edge, def *lspmux.Answer, at func(string) (*lspmux.Answer, error)) (string, string) {
	if len(def.Outside) == 0 {
		// In the workspace, the graph and the line say what the
		// definition is, without asking (implementation is gopls' most
		// costly question: it looks through every package).
		l := def.Locations[0]
		switch {
		case c.enclosing(l.Path, l.Line, "interface", "") != nil:
			impl, err := at("implementation")
			if err != nil {
				return "", c.why(ctx, e.Path, err)
			}
			if lands(impl.Locations, e.Callee) {
				return codegraph.Confirmed, ""
			}
			return codegraph.Refuted, ""
		case strings.HasPrefix(l.Text, "func ") && c.declares(l, e.Name):
			return codegraph.Refuted, ""
		}
		return "", whyValue
	}
	sig, implErr, verdict, why := c.implOrSignature(ctx, e, at)
	if verdict != "" || why != "" {
		return verdict, why
	}
	switch {
	case strings.HasPrefix(sig, "func ("):
		// A method, concrete or an interface's: the implementations
		// must be known before the callee can be ruled out.
		if implErr != nil {
			return "", c.why(ctx, e.Path, implErr)
		}
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "func "):
		return codegraph.Refuted, ""
	}
	return "", whyValue
}

// implOrSignature asks for the implementations at the call site: the
// callee among them confirms the edge (verdict). Otherwise it returns
// hover's signature of what is called, and the implementation question's
// error; why is set when hover failed.
func (c *confirmer) implOrSignature(ctx context.Context, e codegraph.Edge, at func(string) (*lspmux.Answer, error)) (sig string, implErr error, verdict, why string) {
	impl, implErr := at("implementation")
	if implErr == nil && lands(impl.Locations, e.Callee) {
		return "", nil, codegraph.Confirmed, ""
	}
	hv, err := at("hover")
	if err != nil {
		return "", implErr, "", c.why(ctx, e.Path, err)
	}
	return signature(hv.Text), implErr, "", ""
}

// tsEdge judges a TypeScript or JavaScript call whose definition is not
// the callee. Types are structural, so a method may be reached through
// any type of the same shape: only a plain function refutes.
func (c *confirmer) tsEdge(ctx context.Context, e codegraph.Edge, at func(string) (*lspmux.Answer, error)) (string, string) {
	sig, _, verdict, why := c.implOrSignature(ctx, e, at)
	if verdict != "" || why != "" {
		return verdict, why
	}
	switch {
	case strings.HasPrefix(sig, "function "):
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "(method)") && e.Callee.Type == "":
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "(method)"):
		return "", whyDispatch
	}
	return "", whyValue
}

// pyEdge judges a Python call whose definition is not the callee. A
// method call may reach an override in any subclass of the class it
// resolves to, so a method of another class refutes only when the
// callee's class does not derive from it.
func (c *confirmer) pyEdge(ctx context.Context, e codegraph.Edge, def *lspmux.Answer, at func(string) (*lspmux.Answer, error)) (string, string) {
	hv, err := at("hover")
	if err != nil {
		return "", c.why(ctx, e.Path, err)
	}
	sig := signature(hv.Text)
	kind := ""
	if strings.HasPrefix(sig, "(") {
		if i := strings.IndexByte(sig, ')'); i > 0 {
			kind = sig[1:i]
		}
	}
	switch kind {
	case "class":
		return codegraph.Refuted, "" // a constructor: no dispatch
	case "function", "method":
	default:
		return "", whyValue
	}
	if e.Callee.Type == "" {
		// A function (or class) of the callee's name cannot be reached
		// through a call that resolves to another definition.
		return codegraph.Refuted, ""
	}
	// The class of what the call resolves to: outside the workspace, or
	// the class holding the definition.
	var target *codegraph.Def
	if len(def.Locations) > 0 {
		l := def.Locations[0]
		target = c.enclosing(l.Path, l.Line, "class", "")
		if target == nil {
			if kind == "method" {
				return "", whyDispatch // a method the graph does not place
			}
			return codegraph.Refuted, "" // a module's function
		}
	}
	own := c.enclosing(e.Callee.Path, e.Callee.Start, "class", e.Callee.Type)
	if own == nil {
		return "", whyDispatch
	}
	if target != nil && target.Path == own.Path && target.Start == own.Start {
		return "", whyDispatch // another definition in the callee's own class
	}
	anc := c.pyAncestry(ctx, own)
	if !anc.known {
		if ctx.Err() != nil {
			return "", errOutOfTime
		}
		return "", whyDispatch
	}
	if target == nil {
		if anc.outside {
			return "", whyDispatch // it may derive from that library class
		}
		return codegraph.Refuted, ""
	}
	if anc.classes[defID(target)] {
		return "", whyDispatch
	}
	if c.pyProtocol(target) {
		return "", whyDispatch
	}
	return codegraph.Refuted, ""
}

// classAncestry is what a Python class derives from: the workspace's
// classes by defID, whether any base is outside the workspace, and
// whether every base was found.
type classAncestry struct {
	classes map[string]bool
	outside bool
	known   bool
}

func defID(d *codegraph.Def) string { return fmt.Sprintf("%s:%d", d.Path, d.Start) }

// pyAncestry follows the bases of class cls through the server's
// definitions, up to 32 classes.
func (c *confirmer) pyAncestry(ctx context.Context, cls *codegraph.Def) *classAncestry {
	c.mu.Lock()
	if a := c.ancestry[defID(cls)]; a != nil {
		c.mu.Unlock()
		return a
	}
	c.mu.Unlock()
	a := &classAncestry{classes: map[string]bool{}, known: true}
	todo := []*codegraph.Def{cls}
	seen := map[string]bool{defID(cls): true}
	for len(todo) > 0 && a.known {
		if len(seen) > 32 {
			a.known = false
			break
		}
		d := todo[0]
		todo = todo[1:]
		b, err := c.batch(ctx, d.Path)
		if err != nil {
			a.known = false
			break
		}
		for _, base := range pyBases(b.Text(), d) {
			ans, err := b.Query(ctx, lspmux.Query{Op: "definition", Line: base.line, Col: base.col})
			if err != nil || len(ans.Locations)+len(ans.Outside) == 0 {
				a.known = false
				break
			}
			if len(ans.Outside) > 0 {
				a.outside = true
			}
			for _, l := range ans.Locations {
				up := c.enclosing(l.Path, l.Line, "class", base.name)
				if up == nil {
					a.known = false // an alias, or what the graph does not hold
					break
				}
				if id := defID(up); !seen[id] {
					seen[id] = true
					a.classes[id] = true
					todo = append(todo, up)
				}
			}
		}
	}
	if ctx.Err() == nil {
		c.mu.Lock()
		c.ancestry[defID(cls)] = a
		c.mu.Unlock()
	}
	return a
}

// pyProtocol says whether class d names Protocol among its bases: any
// class of the same shape is one, whatever it derives from.
func (c *confirmer) pyProtocol(d *codegraph.Def) bool {
	text, err := c.h.Root.ReadText(d.Path)
	if err != nil {
		return true // not known: the cautious answer
	}
	for _, b := range pyBases(text, d) {
		if b.name == "Protocol" {
			return true
		}
	}
	return false
}

// declares says whether the definition at l is a function or method
// declared there (a static call), not an interface written in a
// signature or a field of func type on a func line.
func (c *confirmer) declares(l lspmux.Location, name string) bool {
	f := c.index.File(l.Path)
	if f == nil {
		return false
	}
	for _, d := range f.Defs {
		if (d.Kind == "func" || d.Kind == "method") && d.Start == l.Line && d.Name == name {
			return true
		}
	}
	return false
}

// enclosing is the innermost definition of kind in rel holding line,
// named name unless name is "".
func (c *confirmer) enclosing(rel string, line int, kind, name string) *codegraph.Def {
	f := c.index.File(rel)
	if f == nil {
		return nil
	}
	var best *codegraph.Def
	for i := range f.Defs {
		d := &f.Defs[i]
		if d.Kind != kind || d.Start > line || line > d.End || (name != "" && d.Name != name) {
			continue
		}
		if best == nil || d.End-d.Start < best.End-best.Start {
			best = d
		}
	}
	if best == nil {
		return nil
	}
	out := *best
	return &out
}

// pyBase is one base class named in a class statement: its last name
// (Protocol in typing.Protocol) and where that name is.
type pyBase struct {
	name      string
	line, col int // 1-based; col in characters
}

// pyBases reads the bases of the class statement of d in text: the
// parenthesised list after its name, keyword arguments (metaclass=…) and
// unpacked ones left out, subscripts (Generic[T]) cut.
func pyBases(text []byte, d *codegraph.Def) []pyBase {
	starts := []int{0}
	for i, ch := range text {
		if ch == '\n' {
			starts = append(starts, i+1)
		}
	}
	if d.Start < 1 || d.Start > len(starts) {
		return nil
	}
	s := string(text)
	off := starts[d.Start-1]
	i := indexWord(s[off:], "class")
	if i < 0 {
		return nil
	}
	off += i + len("class")
	j := indexWord(s[off:], d.Name)
	if j < 0 {
		return nil
	}
	off += j + len(d.Name)
	skip := func() {
		for off < len(s) && (s[off] == ' ' || s[off] == '\t') {
			off++
		}
	}
	skip()
	if off < len(s) && s[off] == '[' { // type parameters (3.12)
		off = closing(s, off)
		skip()
	}
	if off >= len(s) || s[off] != '(' {
		return nil
	}
	end := closing(s, off)
	var out []pyBase
	depth, from := 0, off+1
	for k := off + 1; k < end; k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				if b, ok := pyBaseAt(s, from, k, starts); ok {
					out = append(out, b)
				}
				from = k + 1
			}
		}
	}
	if b, ok := pyBaseAt(s, from, end-1, starts); ok {
		out = append(out, b)
	}
	return out
}

// pyBaseAt reads the base written in s[from:to].
func pyBaseAt(s string, from, to int, starts []int) (pyBase, bool) {
	if to <= from {
		return pyBase{}, false
	}
	part := s[from:to]
	if strings.ContainsAny(part, "=*") {
		return pyBase{}, false
	}
	if k := strings.IndexByte(part, '['); k >= 0 {
		part = part[:k]
	}
	end := len(strings.TrimRight(part, " \t\r\n"))
	begin := end
	for begin > 0 && isIdentByte(part[begin-1]) {
		begin--
	}
	if begin == end {
		return pyBase{}, false
	}
	abs := from + begin
	line := sort.Search(len(starts), func(i int) bool { return starts[i] > abs })
	col := utf8.RuneCountInString(s[starts[line-1]:abs]) + 1
	return pyBase{name: part[begin:end], line: line, col: col}, true
}

// closing is the offset just past the bracket that closes the one at
// s[open].
func closing(s string, open int) int {
	depth := 0
	for k := open; k < len(s); k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return len(s)
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// indexWord is the byte offset of word as a whole identifier in s, or -1.
func indexWord(s, word string) int { return identIndex(s, word) }

// lands says whether a place is in the callee: its file, within its lines.
func lands(locs []lspmux.Location, callee *codegraph.Def) bool {
	for _, l := range locs {
		if l.Path == callee.Path && callee.Start <= l.Line && l.Line <= callee.End {
			return true
		}
	}
	return false
}

// charPlace turns a call site's 1-based line and byte column into the
// 1-based character column lspmux takes, checking that name is there
// still.
func charPlace(text []byte, line, col int, name string) (int, int, bool) {
	l := 1
	off := 0
	for l < line {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		off += i + 1
		l++
	}
	rest := text[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if col < 1 || col-1 > len(rest) || !bytes.HasPrefix(rest[col-1:], []byte(name)) {
		return 0, 0, false
	}
	return line, utf8.RuneCount(rest[:col-1]) + 1, true
}

// signature is the first line of a hover's text that is not a code
// fence: what the name is, as the server writes it.
func signature(hover string) string {
	for _, l := range strings.Split(hover, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		return l
	}
	return ""
}
