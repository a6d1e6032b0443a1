package blast

import (
	"errors"
	"fmt"
	"sort"

	"cchub/codegraph"
	"cchub/workspace"
)

// radius is what each change reaches in the head graph.
type radius struct {
	perChange [][]codegraph.Reached // by index of the change
	reached   []codegraph.Reached   // all, each at its least distance
	notes     []string
}

// blastRadius asks the head graph for the transitive callers of each
// change. A removed definition is put back into the head graph (into its
// file's head version, or its own file when that is gone) so that the
// calls that still name it resolve to it as they did: those callers will
// break. The graph addresses a definition by path and qualified name, so
// definitions of one file that share a qualified name (a Python property's
// getter and setter, Go's init functions) are counted as one.
func blastRadius(head files, cs []Change, depth int, minConfidence string) radius {
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
		x.Put(p, mergeSameNamed(withDefs(f, extra[p])))
	}
	for p, defs := range extra {
		if head[p] == nil {
			x.Put(p, mergeSameNamed(&codegraph.File{Path: p, Language: defs[0].Language, Defs: defs}))
		}
	}

	// A change is counted in the radius of each change that reaches it
	// (a caller of a removed function that was edited still breaks), but
	// listed only once, as changed, not among the reached.
	isChange := map[string]bool{}
	names := make([]string, len(cs))
	for i, c := range cs {
		p := c.Def.Path
		if c.Status == StatusRemoved {
			p = c.placeIn
		}
		names[i] = p + ":" + c.Def.Qual()
		isChange[names[i]] = true
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
		_, reached, err := x.Blast([]string{name}, depth, minConfidence)
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
		r.perChange[i] = reached
		for _, re := range reached {
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
func place(d codegraph.Def) string { return workspace.Place(d.Path, d.Start, d.End) }
