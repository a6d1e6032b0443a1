package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"cchub/blast"
	"cchub/codegraph"
	"cchub/textfmt"
	"cchub/tokenindex"
)

// GraphQuery is one question for the code graph.
type GraphQuery struct {
	Op            string   // symbols, callers, callees, blast or tests
	Name          string   // symbols: a name or glob; the others: a definition as Name, Type.Name or path:Name
	Names         []string // blast, tests: more definitions
	Depth         int      // blast: how many calls away (0: 3)
	MinConfidence string   // blast: exact, import, name-only or possible ("": all)
	// Confirm asks the workspace's language server about the name-only
	// and possible edges of the answer (callers, blast): confirmed ones
	// are marked so, refuted ones left out and counted.
	Confirm bool
	// Offset and Path page the text's listing (symbols, callers, callees,
	// blast): the entries from Offset (0-based) on, of those in Path (a
	// file or directory) if given. The counts are of the whole answer.
	Offset int
	Path   string
}

// GraphResult is the code graph's answer to one question: which fields
// are set depends on Op.
type GraphResult struct {
	Op string `json:"op"`
	// Name is what symbols looked for: a name or a glob.
	Name string `json:"name,omitempty"`
	// Definitions are the definitions symbols found, or those a blast
	// starts from.
	Definitions []codegraph.Def `json:"definitions,omitempty"`
	// Definition is the one callers or callees asked about; Edges are its
	// call sites (callers) or the calls it makes (callees).
	Definition *codegraph.Def   `json:"definition,omitempty"`
	Edges      []codegraph.Edge `json:"edges,omitempty"`
	// Reached is what calls the blast's Definitions, nearest first.
	Reached []codegraph.Reached `json:"reached,omitempty"`
	// Counts are the edges (callers, callees) or reached definitions
	// (blast) by evidence.
	Counts map[string]int `json:"counts,omitempty"`
	// TopLevel are the top-level calls of what a blast reached.
	TopLevel []codegraph.Edge `json:"top_level,omitempty"`
	// Asked and Refuted count a confirmation's questions and the edges it
	// left out; Unconfirmed says why edges stayed unconfirmed.
	Asked       int    `json:"asked,omitempty"`
	Refuted     int    `json:"refuted,omitempty"`
	Unconfirmed string `json:"unconfirmed,omitempty"`
	confirm     bool
	query       GraphQuery // what was asked: the text names the call for more
	// Tests is the tests that changes to the named definitions can break.
	Tests *blast.Selection `json:"tests,omitempty"`
}

// codeGraph is the hub's code graph, made on first need and kept in the
// workspace's store, so that the next process reads only what changed. A
// workspace whose store cannot be opened (read-only, say) is indexed in
// memory.
func (h *Hub) codeGraph(ctx context.Context) *codegraph.Index {
	h.graphMu.Lock()
	defer h.graphMu.Unlock()
	if h.graph == nil {
		h.graph = codegraph.NewIndex(h.Root, h.Parses)
		h.watchDisk() // files rewritten keeping size and mtime are read again
		if db, err := h.state(ctx); err == nil {
			sh, _ := h.Shared(ctx)
			h.graph.Persist(db, sh)
		}
	}
	return h.graph
}

// IndexStats says what Index did: the code graph's part, and the token
// index's.
type IndexStats struct {
	codegraph.Stats
	Tokens tokenindex.Stats `json:"tokens"`
}

// Index brings the code graph and the token index up to date (only files
// whose content changed are read again), keeps the graph's snapshot, and
// says what it did; progress, if not nil, is told what it does and how
// much of it is done.
func (h *Hub) Index(ctx context.Context, progress func(what string, done, total int)) (IndexStats, error) {
	st, err := h.indexGraph(ctx, progress)
	if err != nil {
		return IndexStats{Stats: st}, err
	}
	tok, err := h.indexTokens(ctx)
	return IndexStats{Stats: st, Tokens: tok}, err
}

func (h *Hub) indexGraph(ctx context.Context, progress func(what string, done, total int)) (codegraph.Stats, error) {
	x := h.codeGraph(ctx)
	var parsing, saving func(done, total int)
	if progress != nil {
		parsing = func(done, total int) { progress("indexing", done, total) }
		saving = func(done, total int) { progress("saving the graph's snapshot", done, total) }
	}
	st, err := x.UpdateProgress(ctx, parsing)
	if err == nil {
		// The resolved graph too, so that the next process's first
		// question reads only what it needs.
		_, err = x.SaveSnapshotProgress(ctx, saving)
	}
	h.sayAll(x.Notices())
	return st, err
}

// snapshotLater keeps the graph x has just resolved in the shared store,
// in the background, unless it is there already: the next process answers
// from it at once. A CLI call waits for it as it closes; the MCP server
// cancels it when it stops.
func (h *Hub) snapshotLater(x *codegraph.Index) {
	h.sayAll(x.Notices())
	if !x.Resolved() {
		return
	}
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.bgCtx == nil {
		return // closed
	}
	if h.bgBusy {
		return
	}
	h.bgBusy = true
	h.bg.Add(1)
	ctx := h.bgCtx
	go func() {
		defer h.bg.Done()
		_, err := x.SaveSnapshot(ctx)
		if err != nil && ctx.Err() == nil {
			h.say(fmt.Sprintf("the code graph's snapshot could not be saved (%v); the next process resolves the graph again", err))
		}
		h.bgMu.Lock()
		h.bgBusy = false
		h.bgMu.Unlock()
	}()
}

// sayAll says each of notices (Notice).
func (h *Hub) sayAll(notices []string) {
	for _, n := range notices {
		h.say(n)
	}
}

// Graph answers one question of the code graph.
func (h *Hub) Graph(ctx context.Context, q GraphQuery) (*GraphResult, error) {
	x := h.codeGraph(ctx)
	h.flushWatcher(ctx) // what other processes changed is marked first
	_, err := x.Update(ctx)
	h.sayAll(x.Notices())
	if err != nil {
		return nil, err
	}
	defer h.snapshotLater(x)
	res := &GraphResult{Op: q.Op, query: q}
	switch strings.TrimSpace(q.Op) {
	case "symbols":
		if q.Name == "" {
			return nil, errors.New("symbols needs name: a name or a glob (e.g. *Store*)")
		}
		ds, err := x.Symbols(q.Name)
		if err != nil {
			return nil, err
		}
		res.Name, res.Definitions = q.Name, ds
	case "callers", "callees":
		if q.Name == "" {
			return nil, fmt.Errorf("%s needs name: a definition as Name, Type.Name or path:Name", q.Op)
		}
		var err error
		if q.Op == "callers" {
			res.Definition, res.Edges, err = x.Callers(q.Name)
		} else {
			res.Definition, res.Edges, err = x.Callees(q.Name)
		}
		if err != nil {
			return nil, err
		}
		if q.Confirm {
			res.confirm = true
			res.Edges, res.Asked, res.Refuted, res.Unconfirmed = codegraph.ConfirmEdges(ctx, res.Edges, h.Confirmer(0))
		}
		res.Counts = map[string]int{}
		for _, e := range res.Edges {
			if e.Confidence != "" {
				res.Counts[e.Confidence]++
			}
		}
	case "blast":
		names := q.Names
		if q.Name != "" {
			names = append([]string{q.Name}, names...)
		}
		if len(names) == 0 {
			return nil, errors.New("blast needs name (or names): the definitions that change")
		}
		o := codegraph.BlastOptions{Depth: q.Depth, MinEvidence: q.MinConfidence}
		if q.Confirm {
			o.Confirm, res.confirm = h.Confirmer(0), true
		}
		a, err := x.BlastWith(ctx, names, o)
		if err != nil {
			return nil, err
		}
		res.Definitions, res.Reached, res.Counts, res.TopLevel = a.Starts, a.Reached, a.Counts, a.TopLevel
		res.Asked, res.Refuted, res.Unconfirmed = a.Asked, a.Refuted, a.Unconfirmed
	case "tests":
		names := q.Names
		if q.Name != "" {
			names = append([]string{q.Name}, names...)
		}
		if len(names) == 0 {
			return nil, errors.New("tests needs name (or names): the definitions that change")
		}
		var err error
		if res.Tests, err = blast.SelectFor(ctx, x, names); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown op %q: one of symbols, callers, callees, blast, tests", q.Op)
	}
	return res, nil
}

// Text is the answer for a model or a person: places as path:LINE, how
// sure each call edge is, and for a blast the counts by distance,
// directory and evidence, nearest first, then the files and tests reached.
// It lists everything (from the query's Offset, within its Path).
func (r *GraphResult) Text() string { return r.TextWithin(0) }

// TextWithin is Text within about maxBytes (0: no bound): the counts
// first, then the entries that fit, whole, then how many more there are
// and the call that lists them.
func (r *GraphResult) TextWithin(maxBytes int) string {
	var head, tail strings.Builder
	var items []string
	kept := 0 // entries (in Path) before the page (Offset)
	switch strings.TrimSpace(r.Op) {
	case "symbols":
		if len(r.Definitions) == 0 {
			return fmt.Sprintf("no definition matches %q; try a glob such as *%s*\n", r.Name, r.Name)
		}
		fmt.Fprintf(&head, "%d definition(s) match %q:\n", len(r.Definitions), r.Name)
		for _, d := range r.Definitions {
			items = append(items, fmt.Sprintf("%s:%d-%d\t%s %s\n", d.Path, d.Start, d.End, d.Kind, d.Qual()))
		}
		items, kept = r.page(items, func(i int) string { return r.Definitions[i].Path })
	case "callers", "callees":
		d := r.Definition
		fmt.Fprintf(&head, "%s of %s (%s:%d): %d%s\n", r.Op, d.Qual(), d.Path, d.Start, len(r.Edges), r.evidence())
		if len(r.Edges) > groupFrom {
			byFile := map[string]int{}
			for _, e := range r.Edges {
				byFile[e.Path]++
			}
			fmt.Fprintf(&head, "in %s: %s\n", textfmt.Count(len(byFile), "file"), topCounts(byFile, maxGroups))
		}
		for _, e := range r.Edges {
			other := "top level"
			if r.Op == "callers" && e.Caller != nil {
				other = e.Caller.Qual()
			}
			if r.Op == "callees" {
				other = e.Name + " (unresolved)"
				if e.Callee != nil {
					other = fmt.Sprintf("%s (%s:%d)", e.Callee.Qual(), e.Callee.Path, e.Callee.Start)
				}
			}
			conf := ""
			if e.Confidence != "" {
				conf = " [" + e.Confidence + "]"
			}
			items = append(items, fmt.Sprintf("%s:%d:%d\t%s%s\n", e.Path, e.Line, e.Col, other, conf))
		}
		items, kept = r.page(items, func(i int) string { return r.Edges[i].Path })
	case "blast":
		writeBlastHead(&head, r.query, r.Definitions, r.Reached, r.evidence())
		for _, x := range r.Reached {
			items = append(items, fmt.Sprintf("  %s:%d\t%s [%s] via %s\n", x.Def.Path, x.Def.Start, x.Def.Qual(), x.Confidence, strings.Join(x.Via, " <- ")))
		}
		items, kept = r.page(items, func(i int) string { return r.Reached[i].Def.Path })
		for i, e := range r.TopLevel {
			if i == 0 {
				fmt.Fprintf(&tail, "called at a file's top level (runs when its package or module loads): %d\n", len(r.TopLevel))
			}
			if i == maxGroups && maxBytes > 0 {
				fmt.Fprintf(&tail, "  and %d more\n", len(r.TopLevel)-i)
				break
			}
			fmt.Fprintf(&tail, "  %s:%d\t%s [%s]\n", e.Path, e.Line, e.Name, e.Confidence)
		}
	case "tests":
		var b strings.Builder
		_ = r.Tests.WriteJSON(&b) // the schema of cchub blast --tests --tests-format json
		return b.String()
	}
	if r.Op == "callers" || r.Op == "blast" {
		tail.WriteString(r.confirmation())
	}
	var b strings.Builder
	b.WriteString(head.String())
	shown := 0
	for _, it := range items {
		if maxBytes > 0 && shown > 0 && b.Len()+len(it)+tail.Len()+moreRoom > maxBytes {
			break
		}
		if r.Op == "blast" {
			r.distanceHeading(&b, kept+shown)
		}
		b.WriteString(it)
		shown++
	}
	if shown < len(items) || kept > 0 || r.query.Path != "" {
		b.WriteString(r.more(kept, shown, len(items)))
	}
	if r.Op == "blast" && shown == len(items) && len(r.Reached) <= groupFrom {
		// A short radius, listed to its end: its files and tests (a long
		// one was counted by directory, its tests named, first).
		writeBlastFiles(&b, r.pathed())
	}
	b.WriteString(tail.String())
	return b.String()
}

// groupFrom is how many entries make a list long enough to be counted by
// file or directory first; maxGroups bounds the groups named.
const (
	groupFrom = 20
	maxGroups = 10
	moreRoom  = 400
)

// page keeps the entries the query's Path and Offset select; pathOf is the
// path of entry i. It returns them and the offset of the first.
func (r *GraphResult) page(items []string, pathOf func(i int) string) ([]string, int) {
	var in []string
	for i, it := range items {
		if inPath(pathOf(i), r.query.Path) {
			in = append(in, it)
		}
	}
	off := min(max(r.query.Offset, 0), len(in))
	return in[off:], off
}

// inPath reports whether p is the file or under the directory dir ("" or
// "." is everything).
func inPath(p, dir string) bool {
	dir = strings.Trim(strings.TrimPrefix(strings.TrimSpace(dir), "./"), "/")
	return dir == "" || dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// pathed is the reached definitions the listing covers (those in Path).
func (r *GraphResult) pathed() []codegraph.Reached {
	if r.query.Path == "" {
		return r.Reached
	}
	var out []codegraph.Reached
	for _, x := range r.Reached {
		if inPath(x.Def.Path, r.query.Path) {
			out = append(out, x)
		}
	}
	return out
}

// distanceHeading writes "distance N (M):" before the i-th entry of the
// blast's listing (in Path) when it starts a distance or the page.
func (r *GraphResult) distanceHeading(b *strings.Builder, i int) {
	all := r.pathed()
	if i >= len(all) {
		return
	}
	d := all[i].Distance
	if i > 0 && all[i-1].Distance == d && i != max(r.query.Offset, 0) {
		return
	}
	n := 0
	for _, x := range all {
		if x.Distance == d {
			n++
		}
	}
	fmt.Fprintf(b, "distance %d (%d):\n", d, n)
}

// more says what the listing left out and the call that shows it.
func (r *GraphResult) more(before, shown, rest int) string {
	total := before + rest
	after := rest - shown
	var b strings.Builder
	in := ""
	if r.query.Path != "" {
		in = fmt.Sprintf(" in %s (of %d in all)", r.query.Path, r.listed())
	}
	if shown == 0 {
		fmt.Fprintf(&b, "[nothing to show from offset %d: %d entries%s; from the start: %s]\n", r.query.Offset, total, in, r.query.call(0))
		return b.String()
	}
	fmt.Fprintf(&b, "[showing %d-%d of %d%s", before+1, before+shown, total, in)
	if after > 0 {
		fmt.Fprintf(&b, "; %d more", after)
		if r.Op == "blast" {
			byDist := map[int]int{}
			all := r.pathed()
			for _, x := range all[before+shown:] {
				byDist[x.Distance]++
			}
			fmt.Fprintf(&b, " (%s)", byDistance(byDist))
		}
		fmt.Fprintf(&b, ": %s", r.query.call(before+shown))
	}
	b.WriteString("]\n")
	return b.String()
}

// listed is how many entries the answer lists, in every path.
func (r *GraphResult) listed() int {
	switch strings.TrimSpace(r.Op) {
	case "symbols":
		return len(r.Definitions)
	case "blast":
		return len(r.Reached)
	}
	return len(r.Edges)
}

// call is the graph call that asks q again and lists from offset on.
func (q GraphQuery) call(offset int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph op=%s", strings.TrimSpace(q.Op))
	if q.Name != "" {
		fmt.Fprintf(&b, " name=%s", q.Name)
	}
	if len(q.Names) > 0 {
		js, _ := json.Marshal(q.Names)
		fmt.Fprintf(&b, " names=%s", js)
	}
	if q.Depth != 0 {
		fmt.Fprintf(&b, " depth=%d", q.Depth)
	}
	if q.MinConfidence != "" {
		fmt.Fprintf(&b, " min_confidence=%s", q.MinConfidence)
	}
	if q.Confirm {
		b.WriteString(" confirm=true")
	}
	if q.Path != "" {
		fmt.Fprintf(&b, " path=%s", q.Path)
	}
	if offset > 0 {
		fmt.Fprintf(&b, " offset=%d", offset)
	}
	return b.String()
}

// topCounts is "a 12, b 3, …" for the largest n of counts, and how many
// more there are.
func topCounts(counts map[string]int, n int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// evidence is the counts by evidence, surest first (" — 3 exact, 1
// name-only"), and what a confirmation refuted.
func (r *GraphResult) evidence() string {
	var parts []string
	for _, ev := range codegraph.Evidences {
		if n := r.Counts[ev]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, ev))
		}
	}
	if r.Refuted > 0 {
		parts = append(parts, fmt.Sprintf("%d refuted by the language server (left out)", r.Refuted))
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, ", ")
}

// confirmation says what stays unconfirmed and how to confirm it.
func (r *GraphResult) confirmation() string {
	weak := r.Counts[codegraph.NameOnly] + r.Counts[codegraph.Possible]
	switch {
	case !r.confirm && weak > 0:
		return fmt.Sprintf("%d name-only or possible: unconfirmed; confirm: true (cchub: --confirm) asks the language server\n", weak)
	case r.confirm && r.Unconfirmed != "":
		return "unconfirmed: " + r.Unconfirmed + "\n"
	}
	return ""
}

// writeBlastHead says what a change reaches: the totals (by distance,
// files, tests, evidence), and for a long radius the counts by directory
// and the tests by name.
func writeBlastHead(b *strings.Builder, q GraphQuery, starts []codegraph.Def, reached []codegraph.Reached, evidence string) {
	var names []string
	for _, d := range starts {
		names = append(names, d.Qual())
	}
	byDist := map[int]int{}
	files, dirs := map[string]bool{}, map[string]int{}
	var tests []string
	for _, r := range reached {
		byDist[r.Distance]++
		files[r.Def.Path] = true
		dirs[path.Dir(r.Def.Path)]++
		if r.Def.Test {
			tests = append(tests, fmt.Sprintf("%s (%s)", r.Def.Qual(), r.Def.Path))
		}
	}
	fmt.Fprintf(b, "blast radius of %s: %d definition(s)", strings.Join(names, ", "), len(reached))
	if len(reached) > 0 {
		fmt.Fprintf(b, " (%s) in %s, %s", byDistance(byDist), textfmt.Count(len(files), "file"), textfmt.Count(len(tests), "test"))
	}
	fmt.Fprintf(b, "%s\n", evidence)
	if len(reached) > groupFrom {
		fmt.Fprintf(b, "by directory: %s\n", topCounts(dirs, maxGroups))
		if len(tests) > 0 {
			call := GraphQuery{Op: "tests", Name: q.Name, Names: q.Names}.call(0)
			shown := tests
			more := ""
			if len(shown) > maxGroups {
				shown = shown[:maxGroups]
				more = fmt.Sprintf(" and %d more", len(tests)-maxGroups)
			}
			fmt.Fprintf(b, "tests: %s%s (to run them: %s)\n", strings.Join(shown, ", "), more, call)
		}
	}
}

// writeBlastFiles names the files and the tests a short radius reaches.
func writeBlastFiles(b *strings.Builder, reached []codegraph.Reached) {
	files := map[string]bool{}
	var tests []string
	for _, r := range reached {
		files[r.Def.Path] = true
		if r.Def.Test {
			tests = append(tests, fmt.Sprintf("%s (%s)", r.Def.Qual(), r.Def.Path))
		}
	}
	if len(files) > 0 {
		var fs []string
		for f := range files {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		fmt.Fprintf(b, "files: %s\n", strings.Join(fs, ", "))
	}
	if len(tests) > 0 {
		fmt.Fprintf(b, "tests: %s\n", strings.Join(tests, ", "))
	}
}

// byDistance says counts by distance, nearest first: "300 at distance 1,
// 50 at distance 2".
func byDistance(counts map[int]int) string {
	ds := make([]int, 0, len(counts))
	for d := range counts {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%d at distance %d", counts[d], d)
	}
	return strings.Join(parts, ", ")
}
