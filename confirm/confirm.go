package confirm

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
	"cchub/lang"
	"cchub/lspmux"
	"cchub/workspace"
)

// defaultBudget is how long a confirmation may take when its caller
// gives no budget; parallel is how many questions it has out at once (a
// server answers a few at a time; more only queue).
const (
	defaultBudget = 20 * time.Second
	parallel      = 6
)

// Servers is the workspace's language servers, or why there are none. A
// confirmation calls it only once it has an edge to ask about.
type Servers func() (*lspmux.Mux, error)

// Graph is the code graph the edges were read from, as ctx allows it to
// be opened; a confirmation reads its definitions to place what the
// server's answers land in.
type Graph func(ctx context.Context) *codegraph.Index

// New returns a codegraph.Confirmer that asks the language servers of
// the workspace at root (servers, started on first need) where each
// edge's call goes, within budget (0: 20 s) counted from each call, and
// places their answers with the definitions of graph. See the package
// documentation for what confirms, refutes, or leaves an edge unanswered.
func New(root *workspace.Root, servers Servers, graph Graph, budget time.Duration) codegraph.Confirmer {
	if budget <= 0 {
		budget = defaultBudget
	}
	return func(ctx context.Context, edges []codegraph.Edge) ([]string, string) {
		c := &confirmer{root: root, servers: servers, graph: graph, budget: budget, batches: map[string]*openBatch{}, ancestry: map[string]*classAncestry{}}
		return c.run(ctx, edges)
	}
}

// confirmer is one confirmation: the files opened on their servers, and
// what it learnt of Python classes, shared by its edges.
type confirmer struct {
	root    *workspace.Root
	servers Servers
	graph   Graph
	budget  time.Duration
	mux     *lspmux.Mux
	index   *codegraph.Index

	mu       sync.Mutex
	batches  map[string]*openBatch
	ancestry map[string]*classAncestry
	// tsWaited: a TypeScript call site's definition was waited for once
	// (the project has loaded, or the wait ran out): others ask once.
	tsWaited bool
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
	mux, err := c.servers()
	if err != nil {
		for i := range why {
			why[i] = err.Error()
		}
		return verdicts, unansweredNote(verdicts, why)
	}
	c.mux = mux
	c.index = c.graph(parent)
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
	sem := make(chan struct{}, parallel)
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
	if lspmux.NotLoaded(err) {
		// One reason for many files: say it once, without their paths.
		return "gopls does not build the file here (a build constraint, another platform, an ignored directory)"
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	// Places as the workspace names them, not as URIs.
	msg = strings.ReplaceAll(msg, "file://"+filepath.ToSlash(c.root.Dir())+"/", "")
	return "the language server failed: " + msg
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
	ts := lang.InFamily(e.Path, lang.JavaScript)
	if len(def.Locations) == 0 && len(def.Outside) == 0 && ts {
		var why string
		if def, why = c.tsDefinition(ctx, e, def, at); why != "" {
			return "", why
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
	switch lang.NameOf(e.Path) {
	case lang.Go:
		return c.goEdge(ctx, e, def, at)
	case lang.Python:
		return c.pyEdge(ctx, e, def, at)
	}
	return "", fmt.Sprintf("the definition of a call in a %s file is elsewhere, and cchub does not judge what may dispatch there", extOf(e.Path))
}

// implOrSignature asks for the implementations at the call site: the
// callee among them confirms the edge (verdict). Otherwise it returns
// hover's signature of what is called, and the implementation question's
// error; why is set when hover failed.
func (c *confirmer) implOrSignature(ctx context.Context, e codegraph.Edge, at func(string) (*lspmux.Answer, error)) (sig, verdict, why string, implErr error) {
	impl, implErr := at("implementation")
	if implErr == nil && lands(impl.Locations, e.Callee) {
		return "", codegraph.Confirmed, "", nil
	}
	hv, err := at("hover")
	if err != nil {
		return "", "", c.why(ctx, e.Path, err), implErr
	}
	return signature(hv.Text), "", "", implErr
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
