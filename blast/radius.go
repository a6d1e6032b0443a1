package blast

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"cchub/codegraph"
	"cchub/textfmt"
)

// radius is what each change reaches in the head graph.
type radius struct {
	perChange [][]codegraph.Reached // by index of the change
	reached   []codegraph.Reached   // all, each at its least distance
	notes     []string
}

// blastRadius asks the head graph x (headGraph's, names by change) for
// the transitive callers of each change. A removed definition is put back
// into the head graph (into its file's head version, or its own file when
// that is gone) so that the calls that still name it resolve to it as they
// did: those callers will break. The graph addresses a definition by path and qualified name, so
// definitions of one file that share a qualified name (a Python property's
// getter and setter, Go's init functions) are counted as one.
func blastRadius(ctx context.Context, x *codegraph.Index, cs []Change, names []string, depth int, minConfidence string, confirm codegraph.Confirmer) radius {
	// A change is counted in the radius of each change that reaches it
	// (a caller of a removed function that was edited still breaks), but
	// listed only once, as changed, not among the reached.
	isChange := map[string]bool{}
	for _, n := range names {
		isChange[n] = true
	}
	var r radius
	r.perChange = make([][]codegraph.Reached, len(cs))
	best := map[string]codegraph.Reached{}
	asked := map[string]int{} // name → index of the change first asked for it
	for i, name := range names {
		if j, ok := asked[name]; ok {
			r.perChange[i] = r.perChange[j]
			continue
		}
		asked[name] = i
		a, err := x.BlastWith(ctx, []string{name}, codegraph.BlastOptions{Depth: depth, MinEvidence: minConfidence, Confirm: confirm})
		if err != nil {
			var amb *codegraph.AmbiguousError
			if errors.As(err, &amb) {
				r.notes = append(r.notes, fmt.Sprintf("%s: callers not counted; the graph cannot tell %d definitions named %s in %s apart",
					place(cs[i].Def), len(amb.Candidates), amb.Name, cs[i].Def.Path))
			} else {
				r.notes = append(r.notes, fmt.Sprintf("%s: callers not counted: %v", place(cs[i].Def), err))
			}
			continue
		}
		r.perChange[i] = a.Reached
		for _, re := range a.Reached {
			k := re.Def.Path + ":" + re.Def.Qual()
			if isChange[k] {
				continue
			}
			if old, ok := best[k]; !ok || re.Distance < old.Distance {
				best[k] = re
			}
		}
	}
	for _, re := range best {
		r.reached = append(r.reached, re)
	}
	sort.Slice(r.reached, func(i, j int) bool {
		a, b := r.reached[i], r.reached[j]
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		if a.Def.Path != b.Def.Path {
			return a.Def.Path < b.Def.Path
		}
		return a.Def.Start < b.Def.Start
	})
	return r
}

// headGraph is the head graph a radius is measured in, each removed
// definition put back, and the name each change is known by in it
// (path:Qual, by index of the change).
func headGraph(head files, cs []Change) (*codegraph.Index, []string) {
	x := codegraph.NewMemIndex()
	extra := map[string][]codegraph.Def{}
	for _, c := range cs {
		if c.Status == StatusRemoved {
			d := c.Def
			d.Path = c.placeIn
			extra[c.placeIn] = append(extra[c.placeIn], d)
		}
	}
	for p, f := range head {
		g := mergeSameNamed(withDefs(f, extra[p]))
		if g != f {
			g = codegraph.Derived(g)
		}
		x.Put(p, g)
	}
	for p, defs := range extra {
		if head[p] == nil {
			x.Put(p, codegraph.Derived(mergeSameNamed(&codegraph.File{Path: p, Language: defs[0].Language, Defs: defs})))
		}
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		p := c.Def.Path
		if c.Status == StatusRemoved {
			p = c.placeIn
		}
		names[i] = p + ":" + c.Def.Qual()
	}
	return x, names
}

// withDefs is f with more definitions after its own, so that its calls
// (which index its definitions) still point where they did.
func withDefs(f *codegraph.File, more []codegraph.Def) *codegraph.File {
	if len(more) == 0 {
		return f
	}
	g := *f
	g.Defs = append(append([]codegraph.Def(nil), f.Defs...), more...)
	return &g
}

// mergeSameNamed is f with the definitions that share a qualified name
// made one (the first, over all their lines), its calls moved with them.
func mergeSameNamed(f *codegraph.File) *codegraph.File {
	first := map[string]int{}
	to := make([]int, len(f.Defs))
	var defs []codegraph.Def
	for i, d := range f.Defs {
		k := d.Qual()
		if j, ok := first[k]; ok {
			to[i] = j
			defs[j].Start, defs[j].End = min(defs[j].Start, d.Start), max(defs[j].End, d.End)
			continue
		}
		first[k] = len(defs)
		to[i] = len(defs)
		defs = append(defs, d)
	}
	if len(defs) == len(f.Defs) {
		return f
	}
	g := *f
	g.Defs = defs
	g.Calls = make([]codegraph.Call, len(f.Calls))
	for i, c := range f.Calls {
		if c.In >= 0 && c.In < len(to) {
			c.In = to[c.In]
		}
		g.Calls[i] = c
	}
	return &g
}

// place is a definition's path:START-END.
func place(d codegraph.Def) string { return textfmt.Place(d.Path, d.Start, d.End) }
