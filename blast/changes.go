package blast

import (
	"sort"

	"cchub/codegraph"
	"cchub/unidiff"
)

// What a diff did to a definition.
const (
	StatusModified = "modified" // in both revisions, its lines changed
	StatusAdded    = "added"    // only in head
	StatusRemoved  = "removed"  // only in base: deleted, renamed, or its file deleted
	StatusMoved    = "moved"    // removed from one file and added to another, same name
)

// Change is one definition a diff changed.
type Change struct {
	Def    codegraph.Def // in head; in base when removed
	Status string
	// Was is where a moved definition was in base.
	Was *codegraph.Def
	// RemovedAt is the line of head where a removed definition's lines
	// were, when its file is still there.
	RemovedAt *Place
	// placeIn is the head file a removed definition is counted in when
	// its callers are looked for: its file's head path (a renamed file's
	// new one), or its base path when the file is gone.
	placeIn string
}

// file is the file a changed definition is counted in: its own, or for a
// removed one the file its callers are looked for in.
func (c Change) file() string {
	if c.Status == StatusRemoved {
		return c.placeIn
	}
	return c.Def.Path
}

// changes finds the definitions a diff changed. base holds the base
// versions of the changed files, head every file of the head revision.
// A definition is changed when a changed line is in it and in none of the
// functions or methods inside it (a type, only when the line is in none
// of its methods either); removed and added when only one side has a
// definition of its qualified name in the file; moved when a removed
// definition and an added one share their qualified name, kind and
// language and no other does. Lines that only moved with a renamed file
// are not in the diff, so they change nothing.
func changes(diffs []unidiff.File, base, head files) []Change {
	var out []Change
	for _, d := range diffs {
		if d.Binary {
			continue
		}
		oldF, newF := base[d.OldPath], head[d.NewPath]
		switch {
		case d.Status == unidiff.Deleted:
			if oldF != nil {
				for _, def := range oldF.Defs {
					out = append(out, Change{Def: def, Status: StatusRemoved, placeIn: d.OldPath})
				}
			}
			continue
		case d.Status == unidiff.Added || d.Status == unidiff.Copied:
			if newF != nil {
				for _, def := range newF.Defs {
					out = append(out, Change{Def: def, Status: StatusAdded})
				}
			}
			continue
		}
		var oldR, newR []lineRange
		for _, h := range d.Hunks {
			if h.OldLines > 0 {
				oldR = append(oldR, lineRange{h.OldStart, h.OldStart + h.OldLines - 1})
			}
			if h.NewLines > 0 {
				newR = append(newR, lineRange{h.NewStart, h.NewStart + h.NewLines - 1})
			}
		}
		if newF == nil {
			continue // head has no graph of this file (a language it does not read, too large)
		}
		changed := map[int]bool{} // indexes of newF.Defs
		for _, i := range hit(newF.Defs, newR) {
			changed[i] = true
		}
		if oldF == nil {
			for i := range newF.Defs {
				if changed[i] {
					out = append(out, Change{Def: newF.Defs[i], Status: StatusModified})
				}
			}
			continue
		}
		// Definitions of the same name in one file are paired in order:
		// the second f of base is the second f of head.
		oldByName, newByName := byQual(oldF.Defs), byQual(newF.Defs)
		for _, i := range hit(oldF.Defs, oldR) {
			def := oldF.Defs[i]
			if js := newByName[identity(def)]; len(js) > 0 {
				changed[js[min(rank(oldByName[identity(def)], i), len(js)-1)]] = true
				continue
			}
			line := headLine(d.Hunks, def.Start)
			out = append(out, Change{Def: def, Status: StatusRemoved, placeIn: d.NewPath,
				RemovedAt: &Place{Path: d.NewPath, StartLine: line, EndLine: line}})
		}
		for i, def := range newF.Defs {
			if !changed[i] {
				continue
			}
			st := StatusModified
			if rank(newByName[identity(def)], i) >= len(oldByName[identity(def)]) {
				st = StatusAdded
			}
			out = append(out, Change{Def: def, Status: st})
		}
	}
	return pairMoves(out)
}

// identity is what makes two revisions' definitions the same one: its
// qualified name and whether it is a function or a type.
type ident struct {
	qual string
	fn   bool
}

func identity(d codegraph.Def) ident { return ident{d.Qual(), isFunc(d)} }

func byQual(defs []codegraph.Def) map[ident][]int {
	m := map[ident][]int{}
	for i, d := range defs {
		m[identity(d)] = append(m[identity(d)], i)
	}
	return m
}

// rank is the place of i among is.
func rank(is []int, i int) int {
	for k, j := range is {
		if j == i {
			return k
		}
	}
	return len(is)
}

func isFunc(d codegraph.Def) bool { return d.Kind == "func" || d.Kind == "method" }

// pairMoves turns a removed definition and an added one of the same
// qualified name, kind and language, in different files, into one moved
// definition, when the pair is the only one of its name.
func pairMoves(cs []Change) []Change {
	type key struct{ qual, kind, lang string }
	removed, added := map[key][]int{}, map[key][]int{}
	for i, c := range cs {
		k := key{c.Def.Qual(), c.Def.Kind, c.Def.Language}
		switch c.Status {
		case StatusRemoved:
			removed[k] = append(removed[k], i)
		case StatusAdded:
			added[k] = append(added[k], i)
		}
	}
	drop := map[int]bool{}
	for k, rs := range removed {
		as := added[k]
		if len(rs) != 1 || len(as) != 1 || cs[rs[0]].Def.Path == cs[as[0]].Def.Path {
			continue
		}
		was := cs[rs[0]].Def
		cs[as[0]].Status, cs[as[0]].Was = StatusMoved, &was
		drop[rs[0]] = true
	}
	out := cs[:0]
	for i, c := range cs {
		if !drop[i] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Def, out[j].Def
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return out[i].Status < out[j].Status
	})
	return out
}

// headLine is the line of the new side that line of the old side became:
// the first line of the hunk that changed it (the line before, when the
// hunk only deletes), or the line shifted by the hunks before it.
func headLine(hunks []unidiff.Hunk, line int) int {
	shift := 0
	for _, h := range hunks {
		switch {
		case h.OldLines > 0 && h.OldStart <= line && line < h.OldStart+h.OldLines:
			return max(h.NewStart, 1)
		case h.OldLines == 0 && h.OldStart < line, h.OldLines > 0 && h.OldStart+h.OldLines <= line:
			shift += h.NewLines - h.OldLines
		}
	}
	return max(line+shift, 1)
}

// lineRange is lines Start..End, 1-based, inclusive.
type lineRange struct{ Start, End int }

// hit returns the indexes of defs that the changed ranges touch: for each
// changed line, the innermost function or method holding it, or, when no
// function or method holds it, the innermost type.
func hit(defs []codegraph.Def, changed []lineRange) []int {
	var out []int
	for i, d := range defs {
		own := lineRange{d.Start, d.End}
		touched := false
		for _, c := range changed {
			touched = touched || overlaps(own, c)
		}
		if !touched {
			continue
		}
		// The lines of d that belong to something more specific.
		var others []lineRange
		for j, o := range defs {
			if j == i || !overlaps(own, lineRange{o.Start, o.End}) {
				continue
			}
			if isFunc(o) && (!isFunc(d) || within(o, d, j, i)) || !isFunc(o) && !isFunc(d) && within(o, d, j, i) {
				others = append(others, lineRange{o.Start, o.End})
			}
		}
		sort.Slice(others, func(a, b int) bool { return others[a].Start < others[b].Start })
		for _, c := range changed {
			seg := lineRange{max(c.Start, d.Start), min(c.End, d.End)}
			if seg.Start <= seg.End && !covered(seg, others) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// within says whether definition o (index j) is inside d (index i); of
// two with the same lines, the later one is inside.
func within(o, d codegraph.Def, j, i int) bool {
	if o.Start == d.Start && o.End == d.End {
		return j > i
	}
	return d.Start <= o.Start && o.End <= d.End
}

func overlaps(a, b lineRange) bool { return a.Start <= b.End && b.Start <= a.End }

// covered says whether every line of seg is in one of rs, which are
// sorted by start.
func covered(seg lineRange, rs []lineRange) bool {
	next := seg.Start // the first line not yet known to be covered
	for _, r := range rs {
		if r.Start > next {
			break
		}
		next = max(next, r.End+1)
		if next > seg.End {
			return true
		}
	}
	return next > seg.End
}
