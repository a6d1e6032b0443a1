package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cchub/blast"
	"cchub/codegraph"
	"cchub/store"
	"cchub/tokenindex"
	"cchub/workspace"
)

// GraphQuery is one question for the code graph.
type GraphQuery = codegraph.Query

// GraphResult is the code graph's answer to one question, and for the
// tests op the tests that changes to the named definitions can break.
type GraphResult struct {
	codegraph.Answer
	// Tests is the tests that changes to the named definitions can break.
	Tests *blast.Selection `json:"tests,omitempty"`
}

// Text is the answer for a model or a person (see codegraph.Answer); for
// the tests op, the schema of cchub blast --tests --tests-format json.
func (r *GraphResult) Text() string { return r.TextWithin(0) }

// TextWithin is Text within about maxBytes (0: no bound).
func (r *GraphResult) TextWithin(maxBytes int) string {
	if strings.TrimSpace(r.Op) == "tests" {
		var b strings.Builder
		_ = r.Tests.WriteJSON(&b)
		return b.String()
	}
	return r.Answer.TextWithin(maxBytes)
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
		h.watchDisk() // files another process changed are read again (Index.Suspect)
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
	x := h.codeGraph(ctx)
	var parsing, saving func(done, total int)
	if progress != nil {
		parsing = func(done, total int) { progress("indexing", done, total) }
		saving = func(done, total int) { progress("saving the graph's snapshot", done, total) }
	}
	st, err := x.UpdateProgress(ctx, parsing)
	if err != nil {
		h.sayAll(x.Notices())
		return IndexStats{Stats: st}, err
	}
	// The token index reads the files on every core while the graph is
	// resolved on one for its snapshot: side by side, the one fills the
	// cores the other leaves idle. It is told what the graph parsed by
	// a copy, since resolving holds the graph.
	var tok tokenindex.Stats
	var terr error
	tokens := make(chan struct{})
	parsed := x.ParsedNow()
	go func() {
		defer close(tokens)
		tok, terr = h.indexTokensKnowing(ctx, parsed)
	}()
	// The resolved graph too, so that the next process's first question
	// reads only what it needs.
	_, err = x.SaveSnapshotProgress(ctx, saving)
	<-tokens
	h.sayAll(x.Notices())
	if sh, serr := h.Shared(ctx); serr == nil {
		// The token index's own faults (the database lost while it
		// read or wrote its filters).
		h.sayAll(store.SharedNotices(sh))
	}
	return IndexStats{Stats: st, Tokens: tok}, errors.Join(err, terr)
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
	h.sayRejected(false)
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
	res := &GraphResult{Answer: codegraph.Answer{Op: q.Op, Query: q}}
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
			res.Confirmed = true
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
			o.Confirm, res.Confirmed = h.Confirmer(0), true
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
		if res.Tests, err = blast.SelectFor(ctx, x, names, func(p string) ([]byte, error) { return h.Root.ReadInto(p, nil, workspace.MaxFileBytes) }); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown op %q: one of symbols, callers, callees, blast, tests", q.Op)
	}
	return res, nil
}
