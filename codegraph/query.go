package codegraph

import (
	"context"

	"fmt"
	"github.com/dominikbraun/graph"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Symbols lists the definitions whose name (or Type.Name) matches
// pattern: exactly, or as a glob with * and ?.
func (x *Index) Symbols(pattern string) ([]Def, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("codegraph: %q is not a valid glob: %v", pattern, err)
	}
	b, release, err := x.graph(context.Background())
	if err != nil {
		return nil, err
	}
	defer release()
	var out []Def
	for _, d := range b.defs {
		if ok, _ := path.Match(pattern, d.Name); ok || d.Qual() == pattern {
			out = append(out, *d)
		} else if ok, _ := path.Match(pattern, d.Qual()); ok {
			out = append(out, *d)
		}
	}
	sortDefs(out)
	return out, nil
}

func sortDefs(ds []Def) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Start < ds[j].Start
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
func (b *built) find(name string) (string, error) {
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
}

// Callers lists the call sites of the definition name names.
func (x *Index) Callers(name string) (*Def, []Edge, error) {
	b, release, err := x.graph(context.Background())
	if err != nil {
		return nil, nil, err
	}
	defer release()
	k, err := b.find(name)
	if err != nil {
		return nil, nil, err
	}
	var out []Edge
	for _, in := range b.callIn[k] {
		e := Edge{Callee: copyDef(b.defs[k]), Name: b.defs[k].Name, Path: in.path, Line: in.line, Col: in.col, Confidence: in.confidence}
		if d := b.defs[in.caller]; d != nil {
			e.Caller = copyDef(d)
		}
		out = append(out, e)
	}
	sortEdges(out)
	return copyDef(b.defs[k]), out, nil
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
	b, release, err := x.graph(context.Background())
	if err != nil {
		return nil, nil, err
	}
	defer release()
	k, err := b.find(name)
	if err != nil {
		return nil, nil, err
	}
	var out []Edge
	for _, s := range b.calls[k] {
		if len(s.Targets) == 0 {
			out = append(out, Edge{Caller: copyDef(b.defs[k]), Name: s.Call.Name, Path: s.Path, Line: s.Call.Line, Col: s.Call.Col})
		}
		for _, t := range s.Targets {
			out = append(out, Edge{Caller: copyDef(b.defs[k]), Callee: copyDef(b.defs[t.key]), Name: s.Call.Name, Path: s.Path, Line: s.Call.Line, Col: s.Call.Col, Confidence: t.confidence})
		}
	}
	sortEdges(out)
	return copyDef(b.defs[k]), out, nil
}

func sortEdges(es []Edge) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Path != es[j].Path {
			return es[i].Path < es[j].Path
		}
		return es[i].Line < es[j].Line
	})
}

// Reached is a definition the blast radius reaches, at a distance, by a
// path of callers, through edges no less sure than the least sure on it.
type Reached struct {
	Def        Def      `json:"def"`
	Distance   int      `json:"distance"`
	Via        []string `json:"via"` // qualified names from the changed definition outward
	Confidence string   `json:"confidence"`
}

// Blast is the transitive callers of the definitions names name, to
// depth, through edges at least minConfidence sure ("" takes all).
func (x *Index) Blast(names []string, depth int, minConfidence string) ([]Def, []Reached, error) {
	b, release, err := x.graph(context.Background())
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if depth <= 0 {
		depth = 3
	}
	limit := rank(NameOnly)
	if minConfidence != "" {
		limit = rank(minConfidence)
	}
	var starts []Def
	type state struct {
		via  []string
		conf string
		dist int
	}
	seen := map[string]state{}
	var frontier []string
	for _, n := range names {
		k, err := b.find(n)
		if err != nil {
			return nil, nil, err
		}
		starts = append(starts, *b.defs[k])
		seen[k] = state{via: []string{b.defs[k].Qual()}, conf: Exact}
		frontier = append(frontier, k)
	}
	var out []Reached
	for dist := 1; dist <= depth && len(frontier) > 0; dist++ {
		var next []string
		for _, k := range frontier {
			from := seen[k]
			for _, in := range b.callIn[k] {
				if rank(in.confidence) > limit || b.defs[in.caller] == nil {
					continue
				}
				if _, done := seen[in.caller]; done {
					continue
				}
				conf := from.conf
				if rank(in.confidence) > rank(conf) {
					conf = in.confidence
				}
				d := b.defs[in.caller]
				st := state{via: append(append([]string(nil), from.via...), d.Qual()), conf: conf, dist: dist}
				seen[in.caller] = st
				next = append(next, in.caller)
				out = append(out, Reached{Def: *d, Distance: dist, Via: st.via, Confidence: conf})
			}
		}
		frontier = next
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance < out[j].Distance
		}
		if out[i].Def.Path != out[j].Def.Path {
			return out[i].Def.Path < out[j].Def.Path
		}
		return out[i].Def.Start < out[j].Def.Start
	})
	return starts, out, nil
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
