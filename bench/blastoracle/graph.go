package main

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"cchub/codegraph"
	"cchub/syntax"
	"cchub/workspace"
)

// graph is cchub's code graph of one copy of a module, built in this
// process as the hub builds it (in memory: no store).
type graph struct {
	root  *workspace.Root
	cache *syntax.ParseCache
	x     *codegraph.Index
	defs  map[decl]codegraph.Def // Go functions and methods, by where they are declared
	stats codegraph.Stats
}

func buildGraph(ctx context.Context, dir string) (*graph, error) {
	root, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	g := &graph{root: root, cache: syntax.NewParseCache(0), defs: map[decl]codegraph.Def{}}
	g.x = codegraph.NewIndex(root, g.cache)
	if g.stats, err = g.x.Update(ctx); err != nil {
		g.close()
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	all, err := g.x.Symbols("*")
	if err != nil {
		g.close()
		return nil, err
	}
	for _, d := range all {
		if d.Language == "go" {
			g.defs[decl{d.Path, d.Start}] = d
		}
	}
	return g, nil
}

func (g *graph) close() {
	g.cache.Close()
	g.root.Close()
}

// key names d unambiguously for BlastWith: path:LINE:Type.Name.
func key(d codegraph.Def) string { return fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual()) }

// callers is the depth-1 radius of d: each caller with the evidence of
// its edge (the surest, when it calls d more than once).
func (g *graph) callers(ctx context.Context, d codegraph.Def, confirm codegraph.Confirmer) (map[decl]string, *codegraph.BlastAnswer, error) {
	a, err := g.x.BlastWith(ctx, []string{key(d)}, codegraph.BlastOptions{Depth: 1, Confirm: confirm, CallsOnly: true})
	if err != nil {
		return nil, nil, err
	}
	out := map[decl]string{}
	for _, r := range a.Reached {
		if r.Distance != 1 {
			continue
		}
		out[decl{r.Def.Path, r.Def.Start}] = r.Confidence
	}
	return out, a, nil
}

// thresholds are the classes a caller may ask for, cumulatively: exact,
// then with import edges, name-only, possible. A confirmed edge counts in
// all of them (it is surer than exact).
var thresholds = []struct{ Name, Least string }{
	{"exact", codegraph.Exact},
	{"+import", codegraph.Imported},
	{"+name-only", codegraph.NameOnly},
	{"+possible", codegraph.Possible},
}

// classScore is one evidence class judged against one oracle.
type classScore struct {
	Class string `json:"class"`
	// Edges of this class alone, and how many the oracle has.
	Edges     int     `json:"edges"`
	True      int     `json:"true"`
	Precision float64 `json:"precision"`
}

// thresholdScore is the callers a threshold keeps, judged.
type thresholdScore struct {
	Threshold string  `json:"threshold"`
	Predicted int     `json:"predicted"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

// score accumulates the judgement of callers against one oracle.
type score struct {
	byClass map[string]*classScore
	byThr   []*thresholdScore
	truths  int
}

func newScore() *score {
	s := &score{byClass: map[string]*classScore{}}
	for _, t := range thresholds {
		s.byThr = append(s.byThr, &thresholdScore{Threshold: t.Name})
	}
	return s
}

// judge adds one callee: got is cchub's callers with their evidence,
// want the oracle's. It returns, for each threshold, the oracle's callers
// it missed.
func (s *score) judge(got map[decl]string, want map[decl]site) [][]decl {
	s.truths += len(want)
	for c, ev := range got {
		cs := s.byClass[ev]
		if cs == nil {
			cs = &classScore{Class: ev}
			s.byClass[ev] = cs
		}
		cs.Edges++
		if _, ok := want[c]; ok {
			cs.True++
		}
	}
	missed := make([][]decl, len(thresholds))
	for i, t := range thresholds {
		ts := s.byThr[i]
		for c, ev := range got {
			if codegraph.Rank(ev) > codegraph.Rank(t.Least) {
				continue
			}
			ts.Predicted++
			if _, ok := want[c]; ok {
				ts.TP++
			} else {
				ts.FP++
			}
		}
		for c := range want {
			if ev, ok := got[c]; !ok || codegraph.Rank(ev) > codegraph.Rank(t.Least) {
				ts.FN++
				missed[i] = append(missed[i], c)
			}
		}
	}
	return missed
}

func (s *score) finish() ([]classScore, []thresholdScore) {
	var cls []classScore
	for _, ev := range codegraph.Evidences {
		if cs := s.byClass[ev]; cs != nil {
			cs.Precision = ratio(cs.True, cs.Edges)
			cls = append(cls, *cs)
		}
	}
	var thr []thresholdScore
	for _, ts := range s.byThr {
		ts.Precision = ratio(ts.TP, ts.Predicted)
		ts.Recall = ratio(ts.TP, ts.TP+ts.FN)
		thr = append(thr, *ts)
	}
	return cls, thr
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// shapeCount is one shape of call the graph misses.
type shapeCount struct {
	Shape    string   `json:"shape"`
	Kind     string   `json:"kind"`           // what is called: method, promoted method, interface method, func value, …
	Recv     string   `json:"recv,omitempty"` // for x.M(): how x got its value
	Dynamic  bool     `json:"dynamic"`        // the oracle resolved it through an interface or a func value
	Count    int      `json:"count"`          // call sites
	Edges    int      `json:"edges"`          // caller-callee edges through them
	Examples []string `json:"examples"`       // path:LINE:COL text
	sites    map[string]bool
}

// shapes counts missed calls by shape, most frequent first.
type shapes map[string]*shapeCount

func (sh shapes) add(s site) {
	k := fmt.Sprintf("%s\x00%s\x00%s\x00%v", s.Shape, s.Kind, s.Recv, s.Dynamic)
	c := sh[k]
	if c == nil {
		c = &shapeCount{Shape: s.Shape, Kind: s.Kind, Recv: s.Recv, Dynamic: s.Dynamic, sites: map[string]bool{}}
		sh[k] = c
	}
	c.Edges++
	if !c.sites[s.Pos] {
		c.sites[s.Pos] = true
		c.Count++
	}
	ex := s.Pos + " " + s.Text
	if len(c.Examples) < 3 && !slices.Contains(c.Examples, ex) {
		c.Examples = append(c.Examples, ex)
	}
}

func (sh shapes) top(n int) []shapeCount {
	var out []shapeCount
	for _, c := range sh {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Shape < out[j].Shape
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
