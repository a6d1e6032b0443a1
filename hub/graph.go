package hub

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"cchub/blast"
	"cchub/codegraph"
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

// Index brings the code graph up to date (only files whose content
// changed are read again), keeps its snapshot, and says what it did;
// progress, if not nil, is told what it does and how much of it is done.
func (h *Hub) Index(ctx context.Context, progress func(what string, done, total int)) (codegraph.Stats, error) {
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
	res := &GraphResult{Op: q.Op}
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
// sure each call edge is, and for a blast the files and tests reached.
func (r *GraphResult) Text() string {
	var b strings.Builder
	switch strings.TrimSpace(r.Op) {
	case "symbols":
		if len(r.Definitions) == 0 {
			return fmt.Sprintf("no definition matches %q; try a glob such as *%s*\n", r.Name, r.Name)
		}
		fmt.Fprintf(&b, "%d definition(s) match %q:\n", len(r.Definitions), r.Name)
		for _, d := range r.Definitions {
			fmt.Fprintf(&b, "%s:%d-%d\t%s %s\n", d.Path, d.Start, d.End, d.Kind, d.Qual())
		}
	case "callers", "callees":
		d := r.Definition
		fmt.Fprintf(&b, "%s of %s (%s:%d): %d%s\n", r.Op, d.Qual(), d.Path, d.Start, len(r.Edges), r.evidence())
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
			fmt.Fprintf(&b, "%s:%d:%d\t%s%s\n", e.Path, e.Line, e.Col, other, conf)
		}
	case "blast":
		writeBlast(&b, r.Definitions, r.Reached, r.evidence())
		for i, e := range r.TopLevel {
			if i == 0 {
				b.WriteString("called at a file's top level (runs when its package or module loads):\n")
			}
			fmt.Fprintf(&b, "  %s:%d\t%s [%s]\n", e.Path, e.Line, e.Name, e.Confidence)
		}
	case "tests":
		_ = r.Tests.WriteJSON(&b) // the schema of cchub blast --tests --tests-format json
	}
	if r.Op == "callers" || r.Op == "blast" {
		b.WriteString(r.confirmation())
	}
	return b.String()
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

// writeBlast lists what a change reaches, by distance, then the files and
// the tests among them.
func writeBlast(b *strings.Builder, starts []codegraph.Def, reached []codegraph.Reached, evidence string) {
	var names []string
	for _, d := range starts {
		names = append(names, d.Qual())
	}
	files := map[string]bool{}
	var tests []string
	fmt.Fprintf(b, "blast radius of %s: %d definition(s)%s\n", strings.Join(names, ", "), len(reached), evidence)
	dist := 0
	for _, r := range reached {
		if r.Distance != dist {
			dist = r.Distance
			fmt.Fprintf(b, "distance %d:\n", dist)
		}
		fmt.Fprintf(b, "  %s:%d\t%s [%s] via %s\n", r.Def.Path, r.Def.Start, r.Def.Qual(), r.Confidence, strings.Join(r.Via, " <- "))
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
