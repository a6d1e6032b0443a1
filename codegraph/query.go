package codegraph

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dominikbraun/graph"
)

// Symbols lists the definitions whose name (or Type.Name) matches
// pattern: exactly, or as a glob with * and ?.
func (x *Index) Symbols(pattern string) ([]Def, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("codegraph: %q is not a valid glob: %v", pattern, err)
	}
	var out []Def
	err := x.query(context.Background(), func(b *built) error {
		out = nil
		if b.lazy != nil {
			names, err := b.lazy.symbolNames(context.Background(), pattern)
			if err != nil {
				return err
			}
			if err := b.need(context.Background(), names...); err != nil {
				return err
			}
		}
		for _, d := range b.defs {
			if ok, _ := path.Match(pattern, d.Name); ok || d.Qual() == pattern {
				out = append(out, *d)
			} else if ok, _ := path.Match(pattern, d.Qual()); ok {
				out = append(out, *d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortDefs(out)
	return out, nil
}

// sortDefs orders definitions by place, in one order whatever the
// order they came in: definitions that begin on one line (an interface
// and its method written on one line) by their end, then by what they
// are.
func sortDefs(ds []Def) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		switch {
		case a.Path != b.Path:
			return a.Path < b.Path
		case a.Start != b.Start:
			return a.Start < b.Start
		case a.End != b.End:
			return a.End > b.End // the enclosing one first
		case a.Type != b.Type:
			return a.Type < b.Type
		case a.Name != b.Name:
			return a.Name < b.Name
		}
		return a.Kind < b.Kind
	})
}

// AmbiguousError lists the definitions a name could mean.
type AmbiguousError struct {
	Name       string
	Candidates []Def
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q names %d definitions; give one as path:Name, Type.Name or path:LINE:Name:", e.Name, len(e.Candidates))
	for i, d := range e.Candidates {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(e.Candidates)-10)
			break
		}
		fmt.Fprintf(&b, " %s:%d (%s)", d.Path, d.Start, d.Qual())
	}
	return b.String()
}

// find resolves a name as a caller gives it: Name, Type.Name, path:Name,
// path:Type.Name, or path:LINE:Name (the definition of that name holding
// the line: one of several that share a name in one file).
func (b *built) find(ctx context.Context, name string) (string, error) {
	file, line := "", 0
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		file, name = name[:i], name[i+1:]
		if j := strings.LastIndexByte(file, ':'); j >= 0 {
			if n, err := strconv.Atoi(file[j+1:]); err == nil && n > 0 {
				file, line = file[:j], n
			}
		}
	}
	short := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		short = name[i+1:]
	}
	if err := b.need(ctx, short); err != nil {
		return "", err
	}
	var keys []string
	for _, d := range b.byName[short] {
		k := d.key
		if (name == short || d.Qual() == name) && (file == "" || d.Path == file) && (line == 0 || d.Start <= line && line <= d.End) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 1 && line > 0 {
		// The innermost definition holding the line.
		sort.Slice(keys, func(i, j int) bool {
			a, c := b.defs[keys[i]], b.defs[keys[j]]
			return a.End-a.Start < c.End-c.Start
		})
		keys = keys[:1]
	}
	if len(keys) > 1 && name == short {
		// A bare name means the function, not a method that shares it
		// (heap.Push and Interface.Push): methods are named Type.Name.
		var plain []string
		for _, k := range keys {
			if b.defs[k].Type == "" {
				plain = append(plain, k)
			}
		}
		if len(plain) == 1 {
			keys = plain
		}
	}
	switch len(keys) {
	case 0:
		return "", fmt.Errorf("no definition named %q in the index; look for it with symbols and a glob (e.g. *%s*)", name, short)
	case 1:
		return keys[0], nil
	}
	e := &AmbiguousError{Name: name}
	for _, k := range keys {
		e.Candidates = append(e.Candidates, *b.defs[k])
	}
	sortDefs(e.Candidates)
	return "", e
}

// Edge is a call from one definition to another, at one place.
type Edge struct {
	Caller     *Def   `json:"caller,omitempty"` // nil: a call at a file's top level
	Callee     *Def   `json:"callee,omitempty"` // nil: unresolved
	Name       string `json:"name"`             // the name called
	Path       string `json:"path"`
	Line       int    `json:"line"`
	Col        int    `json:"col"`
	Confidence string `json:"confidence,omitempty"`
	// Ref marks a function named as a value there (a callback, a field's
	// value): a dependency, not a call.
	Ref bool `json:"ref,omitempty"`
}

// Callers lists the call sites of the definition name names: the calls
// linked to it, and the possible ones (calls of its name too widely named
// to link).
func (x *Index) Callers(name string) (*Def, []Edge, error) {
	ctx := context.Background()
	var def *Def
	var out []Edge
	err := x.query(ctx, func(b *built) error {
		k, err := b.find(ctx, name)
		if err != nil {
			return err
		}
		own := b.incomingOf(k)
		ins := append(own[:len(own):len(own)], b.possibleIn(b.defs[k])...)
		if err := b.needCallers(ctx, ins); err != nil {
			return err
		}
		out = nil
		for _, in := range ins {
			e := Edge{Callee: copyDef(b.defs[k]), Name: b.defs[k].Name, Path: in.path, Line: in.line, Col: in.col, Confidence: in.confidence, Ref: in.ref}
			if d := b.defs[in.caller]; d != nil {
				e.Caller = copyDef(d)
			}
			out = append(out, e)
		}
		def = copyDef(b.defs[k])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sortEdges(out)
	return def, out, nil
}

// ConfirmEdges asks confirm about the name-only and possible edges among
// es and returns es with their answers: confirmed edges marked so,
// refuted ones left out (counted in refuted); note says why some went
// unanswered.
func ConfirmEdges(ctx context.Context, es []Edge, confirm Confirmer) (out []Edge, asked, refuted int, note string) {
	var ask []Edge
	var at []int
	for i, e := range es {
		if e.Callee != nil && (e.Confidence == NameOnly || e.Confidence == Possible) {
			ask = append(ask, e)
			at = append(at, i)
		}
	}
	if len(ask) == 0 || confirm == nil {
		return es, 0, 0, ""
	}
	vs, note := confirm(ctx, ask)
	verdict := map[int]string{}
	for j, i := range at {
		if j < len(vs) {
			verdict[i] = vs[j]
		}
	}
	for i, e := range es {
		switch verdict[i] {
		case Refuted:
			refuted++
			continue
		case Confirmed:
			e.Confidence = Confirmed
		}
		out = append(out, e)
	}
	return out, len(ask), refuted, note
}

// copyDef is a copy of d for a caller to keep: the index's own
// definitions change in place when their file is edited.
func copyDef(d *Def) *Def {
	if d == nil {
		return nil
	}
	c := *d
	return &c
}

// Callees lists the calls made in the definition name names, resolved or
// not.
func (x *Index) Callees(name string) (*Def, []Edge, error) {
	ctx := context.Background()
	var def *Def
	var out []Edge
	err := x.query(ctx, func(b *built) error {
		k, err := b.find(ctx, name)
		if err != nil {
			return err
		}
		def = copyDef(b.defs[k])
		if b.lazy != nil {
			out, err = b.lazyCallees(ctx, k)
			return err
		}
		out = nil
		for _, s := range b.calls[k] {
			if len(s.Targets) == 0 {
				if !s.Call.Ref { // a value that names no function is no call
					out = append(out, Edge{Caller: copyDef(b.defs[k]), Name: s.Call.Name, Path: s.Path, Line: s.Call.Line, Col: s.Call.Col})
				}
			}
			for _, t := range s.Targets {
				out = append(out, Edge{Caller: copyDef(b.defs[k]), Callee: copyDef(b.defs[t.key]), Name: s.Call.Name, Path: s.Path, Line: s.Call.Line, Col: s.Call.Col, Confidence: t.confidence, Ref: s.Call.Ref})
			}
		}
		def = copyDef(b.defs[k])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sortEdges(out)
	return def, out, nil
}

// sortEdges orders edges by place, then by the definitions at their
// ends: one order whatever order they were found in.
func sortEdges(es []Edge) {
	key := func(d *Def) string {
		if d == nil {
			return ""
		}
		return d.key
	}
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if ka, kb := key(a.Caller), key(b.Caller); ka != kb {
			return ka < kb
		}
		return key(a.Callee) < key(b.Callee)
	})
}

// Reached is a definition the blast radius reaches, at a distance, by a
// path of callers, through edges no less sure than the least sure on it.
type Reached struct {
	Def        Def      `json:"def"`
	Distance   int      `json:"distance"`
	Via        []string `json:"via"`        // qualified names from the changed definition outward
	Confidence string   `json:"confidence"` // the evidence of the path: its least sure edge
	// Call is where it makes the call that reached it (path:LINE:COL).
	Call string `json:"call,omitempty"`
	// Ref says that call names the function as a value (a callback, a
	// field's value) instead of calling it.
	Ref bool `json:"ref,omitempty"`
}

// A Confirmer asks a language server about call edges: for each edge, in
// order, Confirmed, Refuted or "" (no answer). note says why some went
// unanswered ("" when none did).
type Confirmer func(ctx context.Context, edges []Edge) (verdicts []string, note string)

// CachedConfirmer is c asked at most once about each edge: a run that
// asks about several radiuses shares the answers (and the notes).
func CachedConfirmer(c Confirmer) Confirmer {
	if c == nil {
		return nil
	}
	var mu sync.Mutex
	known := map[string]string{}
	return func(ctx context.Context, es []Edge) ([]string, string) {
		mu.Lock()
		defer mu.Unlock()
		id := func(e Edge) string {
			callee := ""
			if e.Callee != nil {
				callee = e.Callee.key
			}
			return edgeID(callee, e.Path, e.Line, e.Col, callerKey(e))
		}
		var ask []Edge
		for _, e := range es {
			if _, ok := known[id(e)]; !ok {
				ask = append(ask, e)
			}
		}
		note := ""
		if len(ask) > 0 {
			var vs []string
			vs, note = c(ctx, ask)
			for i, e := range ask {
				v := ""
				if i < len(vs) {
					v = vs[i]
				}
				known[id(e)] = v
			}
		}
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = known[id(e)]
		}
		return out, note
	}
}

// BlastOptions say how far a blast radius goes and how sure it must be.
type BlastOptions struct {
	Depth int // calls away: 0 is 3, negative is no limit
	// MinEvidence is the least sure edge followed: exact, import,
	// name-only or possible ("" follows all).
	MinEvidence string
	// Confirm, if set, is asked about the name-only and possible edges
	// the radius follows, all at once; refuted ones are left out.
	Confirm Confirmer
	// AllPossible follows possible edges into every definition reached,
	// not only into the named ones: for test selection, where a test the
	// change may reach must not be skipped.
	AllPossible bool
	// CallsOnly leaves out reference edges (a function named as a value):
	// what a call graph, which has no such edges, can be compared with.
	CallsOnly bool
}

// BlastAnswer is a blast radius and what it is made of.
type BlastAnswer struct {
	Starts  []Def     `json:"definitions"`
	Reached []Reached `json:"reached"`
	// Counts are the reached definitions by evidence.
	Counts map[string]int `json:"counts"`
	// TopLevel are the calls, at a file's top level (a package variable's
	// initialiser, a module's body), of the changed or reached definitions:
	// they run when the package or module is loaded.
	TopLevel []Edge `json:"top_level,omitempty"`
	// Asked is how many edges the confirmation asked about; Refuted how
	// many it refuted (left out).
	Asked   int `json:"asked,omitempty"`
	Refuted int `json:"refuted,omitempty"`
	// Unconfirmed says why edges stayed unconfirmed (no server, out of
	// time), "" when none did or none was asked.
	Unconfirmed string `json:"unconfirmed,omitempty"`
}

// Blast is the transitive callers of the definitions names name, to
// depth, through edges at least minConfidence sure ("" takes all).
func (x *Index) Blast(names []string, depth int, minConfidence string) ([]Def, []Reached, error) {
	a, err := x.BlastWith(context.Background(), names, BlastOptions{Depth: depth, MinEvidence: minConfidence})
	if err != nil {
		return nil, nil, err
	}
	return a.Starts, a.Reached, nil
}

// radiusIn is the part of the graph a blast radius can follow: the calls
// of each definition it may reach, copied, so that a confirmation can run
// without holding the graph.
type radiusIn struct {
	defs map[string]*Def
	in   map[string][]incoming // each definition's own calls
	// pos names, for a definition whose possible calls are followed, the
	// list of them in lists: one per name (and call form), shared by every
	// definition so named instead of copied into each.
	pos   map[string]string
	lists map[string][]incoming
}

// each calls fn with every call of k that the radius follows: its own,
// then its possible ones.
func (sub *radiusIn) each(k string, fn func(in *incoming)) {
	ins := sub.in[k]
	for i := range ins {
		fn(&ins[i])
	}
	if pk, ok := sub.pos[k]; ok {
		list := sub.lists[pk]
		for i := range list {
			fn(&list[i])
		}
	}
}

// BlastWith is the transitive callers of the definitions names name.
// Possible edges (a call too widely named to link) are followed only into
// the named definitions: a call that names a changed definition, not
// every call of every name on the way.
func (x *Index) BlastWith(ctx context.Context, names []string, o BlastOptions) (*BlastAnswer, error) {
	depth := o.Depth
	if depth == 0 {
		depth = 3
	}
	if depth < 0 {
		depth = int(^uint(0) >> 1)
	}
	limit := rank(Possible)
	if o.MinEvidence != "" {
		if limit = rank(o.MinEvidence); limit > rank(Possible) {
			return nil, fmt.Errorf("unknown evidence %q: one of %s", o.MinEvidence, strings.Join(Evidences[1:], ", "))
		}
	}
	var a *BlastAnswer
	var keys []string
	var sub *radiusIn
	err := x.query(ctx, func(b *built) error {
		a, keys = &BlastAnswer{Counts: map[string]int{}}, nil
		for _, n := range names {
			k, err := b.find(ctx, n)
			if err != nil {
				return err
			}
			keys = append(keys, k)
			a.Starts = append(a.Starts, *b.defs[k])
		}
		var err error
		sub, err = b.radiusIn(ctx, keys, depth, limit, o.AllPossible, o.CallsOnly)
		return err
	})
	if err != nil {
		return nil, err
	}

	verdict := map[string]string{}
	if o.Confirm != nil {
		var ask []Edge
		seen := map[string]bool{}
		for k := range sub.defs {
			sub.each(k, func(in *incoming) {
				if in.confidence != NameOnly && in.confidence != Possible {
					return
				}
				id := in.id(k)
				if seen[id] {
					return
				}
				seen[id] = true
				e := Edge{Callee: copyDef(sub.defs[k]), Name: sub.defs[k].Name, Path: in.path, Line: in.line, Col: in.col, Confidence: in.confidence}
				e.Caller = copyDef(sub.defs[in.caller])
				ask = append(ask, e)
			})
		}
		sortEdges(ask)
		if len(ask) > 0 {
			vs, note := o.Confirm(ctx, ask)
			a.Asked, a.Unconfirmed = len(ask), note
			for i, e := range ask {
				if i < len(vs) && vs[i] != "" {
					verdict[edgeID(e.Callee.key, e.Path, e.Line, e.Col, callerKey(e))] = vs[i]
					if vs[i] == Refuted {
						a.Refuted++
					}
				}
			}
		}
	}
	a.Reached, a.TopLevel = sub.walk(keys, depth, verdict)
	for _, r := range a.Reached {
		a.Counts[r.Confidence]++
	}
	return a, nil
}

// callerKey is the key of an edge's caller ("path:" at top level).
func callerKey(e Edge) string {
	if e.Caller != nil {
		return e.Caller.key
	}
	return e.Path + ":"
}

func edgeID(callee, path string, line, col int, caller string) string {
	return fmt.Sprintf("%s\x00%s:%d:%d\x00%s", callee, path, line, col, caller)
}

func (in incoming) id(callee string) string {
	return edgeID(callee, in.path, in.line, in.col, in.caller)
}

// radiusIn collects, for every definition within depth-1 calls of keys,
// its calls no less sure than limit: what any walk of the radius, with
// some of those edges refuted, can follow.
func (b *built) radiusIn(ctx context.Context, keys []string, depth, limit int, allPossible, callsOnly bool) (*radiusIn, error) {
	sub := &radiusIn{defs: map[string]*Def{}, in: map[string][]incoming{}, pos: map[string]string{}, lists: map[string][]incoming{}}
	start := map[string]bool{}
	for _, k := range keys {
		start[k] = true
	}
	keep := func(ins []incoming) []incoming {
		var kept []incoming
		for _, in := range ins {
			if rank(in.confidence) > limit || callsOnly && in.ref {
				continue
			}
			kept = append(kept, in)
		}
		return kept
	}
	seen := map[string]bool{}
	frontier := append([]string(nil), keys...)
	for _, k := range keys {
		seen[k] = true
		sub.defs[k] = copyDef(b.defs[k])
	}
	for dist := 1; dist <= depth && len(frontier) > 0; dist++ {
		// The calls new at this distance: each definition's own, and
		// each possible list the first time a definition needs it.
		var fresh [][]incoming
		for _, k := range frontier {
			sub.in[k] = keep(b.incomingOf(k))
			fresh = append(fresh, sub.in[k])
			d := b.defs[k]
			if (start[k] || allPossible) && limit >= rank(Possible) {
				pk := d.Name + "\x00" + strconv.FormatBool(d.Type != "")
				if _, ok := sub.lists[pk]; !ok {
					sub.lists[pk] = keep(b.possibleIn(d))
					fresh = append(fresh, sub.lists[pk])
				}
				sub.pos[k] = pk
			}
		}
		// The callers' rows, all of this distance's at once.
		var all []incoming
		for _, ins := range fresh {
			all = append(all, ins...)
		}
		if err := b.needCallers(ctx, all); err != nil {
			return nil, err
		}
		var next []string
		for _, ins := range fresh {
			for _, in := range ins {
				d := b.defs[in.caller]
				if d == nil {
					continue
				}
				if _, ok := sub.defs[in.caller]; !ok {
					sub.defs[in.caller] = copyDef(d)
				}
				if !seen[in.caller] {
					seen[in.caller] = true
					next = append(next, in.caller)
				}
			}
		}
		frontier = next
	}
	return sub, nil
}

// possibleIn is the calls that may reach d although the graph could not
// link them: calls of its name left unlinked as too widely named, on a
// value for a method, bare for a function.
func (b *built) possibleIn(d *Def) []incoming {
	var out []incoming
	for _, in := range b.crowdOf(d.Name) {
		if in.qualified == (d.Type != "") {
			out = append(out, in)
		}
	}
	return out
}

// walk is the radius of keys over sub, breadth first, each definition at
// its least distance and, among the paths of that length, the surest;
// verdict overrides the evidence of the edges a confirmation answered
// (refuted ones are not followed). It also returns the top-level calls of
// what it reached.
func (sub *radiusIn) walk(keys []string, depth int, verdict map[string]string) ([]Reached, []Edge) {
	// Each definition reached keeps the one it was reached from (its
	// path is made once, for the answer) and the call that reached it.
	type state struct {
		from string // "" for a start
		conf string
		dist int
		in   *incoming
	}
	seen := map[string]*state{}
	var frontier []string
	for _, k := range keys {
		if _, ok := seen[k]; ok {
			continue
		}
		seen[k] = &state{conf: Confirmed}
		frontier = append(frontier, k)
	}
	var top []Edge
	walked := map[string]bool{} // possible lists followed
	for dist := 1; dist <= depth && len(frontier) > 0; dist++ {
		best := map[string]*state{}
		var order []string
		for _, k := range frontier {
			from := seen[k]
			// A possible list is followed once: every edge of it is
			// possible, so the first definition that reaches its calls
			// reaches them as surely as any other could (unless a
			// confirmation gave them verdicts of their own).
			pk, hasPos := sub.pos[k]
			skipPos := hasPos && len(verdict) == 0 && walked[pk]
			if hasPos && len(verdict) == 0 {
				walked[pk] = true
			}
			n := len(sub.in[k])
			i := -1
			sub.each(k, func(in *incoming) {
				i++
				if i >= n && skipPos {
					return
				}
				ev := in.confidence
				if len(verdict) == 0 {
					// nothing was asked: no verdict to look up
				} else if v, ok := verdict[in.id(k)]; ok {
					if v == Refuted {
						return
					}
					ev = v
				}
				conf := from.conf
				if rank(ev) > rank(conf) {
					conf = ev
				}
				if sub.defs[in.caller] == nil {
					top = append(top, Edge{Callee: copyDef(sub.defs[k]), Name: sub.defs[k].Name, Path: in.path, Line: in.line, Col: in.col, Confidence: conf})
					return
				}
				if _, done := seen[in.caller]; done {
					return
				}
				if old, ok := best[in.caller]; !ok {
					order = append(order, in.caller)
					best[in.caller] = &state{from: k, conf: conf, dist: dist, in: in}
				} else if rank(conf) < rank(old.conf) {
					*old = state{from: k, conf: conf, dist: dist, in: in}
				}
			})
		}
		for _, k := range order {
			seen[k] = best[k]
		}
		frontier = order
	}
	via := func(k string) []string {
		var path []string
		for ; k != ""; k = seen[k].from {
			path = append(path, sub.defs[k].Qual())
		}
		slices.Reverse(path)
		return path
	}
	var out []Reached
	for k, st := range seen {
		if st.dist == 0 {
			continue
		}
		out = append(out, Reached{Def: *sub.defs[k], Distance: st.dist, Via: via(k), Confidence: st.conf,
			Call: fmt.Sprintf("%s:%d:%d", st.in.path, st.in.line, st.in.col), Ref: st.in.ref})
	}
	// One order whatever the map's: by distance, place, then key.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		if a.Def.Path != b.Def.Path {
			return a.Def.Path < b.Def.Path
		}
		if a.Def.Start != b.Def.Start {
			return a.Def.Start < b.Def.Start
		}
		return a.Def.key < b.Def.key
	})
	sortEdges(top)
	return out, top
}

// Graph returns the definitions and the calls between them as a graph
// (vertices: definition keys, path:Type.Name; edges: caller → callee with
// a "confidence" attribute), for callers who want a graph algorithm
// (cycles, orders, paths). It is made on first need after a change: the
// queries above walk the index's own maps, which are cheaper to make.
func (x *Index) Graph(ctx context.Context) (graph.Graph[string, string], error) {
	b, release, err := x.graph(ctx)
	if err != nil {
		return nil, err
	}
	if b.lazy != nil {
		// Every edge is wanted: the files are resolved instead.
		release()
		x.mu.Lock()
		if x.built == b {
			x.invalidate()
		}
		x.direct = false
		x.mu.Unlock()
		if b, release, err = x.graph(ctx); err != nil {
			return nil, err
		}
	}
	defer release()
	b.once.Do(func() {
		g := graph.New(graph.StringHash, graph.Directed())
		for k := range b.defs {
			_ = g.AddVertex(k)
		}
		for e, conf := range b.edges {
			_ = g.AddEdge(e[0], e[1], graph.EdgeAttribute("confidence", conf))
		}
		b.g = g
	})
	return b.g, nil
}
