package blast

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"cchub/codegraph"
	"cchub/textfmt"
)

// assemble makes the selection from what the runners selected: the whole
// suite when something called for it, else each runner's groups (a sure
// whole group holds every other of its scope; a cautious whole group
// holds the cautious ones), named by the namers of their family, in one
// order, and counted.
func (s *selector) assemble(suite int) *Selection {
	sel := &Selection{Version: TestsVersion, Groups: []TestGroup{}, Counts: SelectionCounts{Suite: suite, Unlinked: len(s.unlinked)}, Platform: s.in.platform.String()}
	for p := range s.notBuilt {
		sel.NotBuilt = append(sel.NotBuilt, p)
	}
	sort.Strings(sel.NotBuilt)
	for _, r := range s.runners {
		sel.Suite = append(sel.Suite, r.suite()...)
	}
	if len(s.all) > 0 {
		sort.Strings(s.all)
		sel.All = &AllTests{Why: strings.Join(dedupe(s.all), "; ")}
		sel.Counts.Selected = suite
		return sel
	}
	var bs []built
	for _, r := range s.runners {
		for _, b := range r.groups(s) {
			for _, n := range namers {
				if n.family() == r.family() {
					n.annotate(&b.TestGroup, b.tests)
				}
			}
			bs = append(bs, b)
		}
	}
	sort.Slice(bs, func(i, j int) bool {
		a, b := bs[i], bs[j]
		if a.Cautious != b.Cautious {
			return !a.Cautious
		}
		if a.Runner != b.Runner {
			return a.Runner < b.Runner
		}
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Whole && !b.Whole
	})
	// Sure tests also inside a cautious whole group are counted once.
	sureIn := map[string]int{}
	for _, b := range bs {
		if !b.Whole && !b.Cautious {
			sureIn[b.Runner+"\x00"+b.Dir+"\x00"+b.File] += len(b.Tests)
		}
	}
	for _, b := range bs {
		sel.Groups = append(sel.Groups, b.TestGroup)
		n := b.known
		if b.Whole && b.Cautious {
			n = max(0, n-sureIn[b.Runner+"\x00"+b.Dir+"\x00"+b.File])
		}
		sel.Counts.Selected += n
		if b.Cautious {
			sel.Counts.Cautious += n
		}
		if b.Whole {
			if sel.Counts.WholeBy == nil {
				sel.Counts.WholeBy = map[string]int{}
			}
			sel.Counts.Whole++
			sel.Counts.WholeBy[evidenceOfWhy(b.Why)]++
		}
	}
	sel.Counts.Selected = min(sel.Counts.Selected, suite)
	sel.Counts.Cautious = min(sel.Counts.Cautious, suite)
	return sel
}

// wholes is the scopes of runner r selected whole.
func (s *selector) wholes(r runner) map[scope]*pick {
	out := map[scope]*pick{}
	for sc, w := range s.whole {
		if sc.runner == r.name() {
			out[sc] = w
		}
	}
	return out
}

// held says whether one of scopes, selected whole, holds what is
// selected with the given sureness: a sure whole scope holds anything, a
// cautious one only what is cautious.
func (s *selector) held(scopes []scope, sure bool) bool {
	for _, sc := range scopes {
		if w, ok := s.whole[sc]; ok && (w.sure || !sure) {
			return true
		}
	}
	return false
}

// unit is the tests of runner r selected one by one in one of its scopes
// (a package, a file), with one sureness, that no whole scope holds: one
// group.
type unit struct {
	scope
	sure  bool
	tests []codegraph.Def // by qualified name, path and line
	why   string          // each test's reason, in that order
}

// units is the tests of runner r selected one by one and not held by a
// whole scope: in, for each, is the scope it runs in by itself; above,
// the scopes that hold all of a scope (nil: none).
func (s *selector) units(r runner, in func(codegraph.Def) scope, above func(scope) []scope) []unit {
	type key struct {
		sc   scope
		sure bool
	}
	byKey := map[key][]*pick{}
	for _, t := range s.tests {
		if t.by != r {
			continue
		}
		sc := in(t.def)
		holders := []scope{sc}
		if above != nil {
			holders = append(holders, above(sc)...)
		}
		if s.held(holders, t.sure) {
			continue
		}
		k := key{sc, t.sure}
		byKey[k] = append(byKey[k], t)
	}
	var out []unit
	for k, ts := range byKey {
		// One order, whatever the map's: two tests may share a name in
		// one package (files for different platforms).
		sort.Slice(ts, func(i, j int) bool {
			a, b := ts[i].def, ts[j].def
			if a.Qual() != b.Qual() {
				return a.Qual() < b.Qual()
			}
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Start < b.Start
		})
		u := unit{scope: k.sc, sure: k.sure}
		var whys []string
		for _, t := range ts {
			u.tests = append(u.tests, t.def)
			whys = append(whys, t.def.Qual()+": "+t.why)
		}
		u.why = strings.Join(whys, "; ")
		out = append(out, u)
	}
	return out
}

// dirsAbove is the scopes of runner name that hold every directory
// strictly above p, up to the root, each with all under it.
func dirsAbove(name, p string) []scope {
	if p == "." {
		return nil
	}
	var out []scope
	for d := path.Dir(p); ; d = path.Dir(d) {
		out = append(out, scope{runner: name, target: d, tree: true})
		if d == "." {
			return out
		}
	}
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,") == "" {
		return s
	}
	return quoteAlways(s)
}

// quoteAlways quotes s for a POSIX shell. A command is printed for a
// person as well as run, so what textfmt.Visible would escape (a control
// character, a bidirectional control, a byte that is not UTF-8) is
// not written as it is but made by printf from its octal escape, as a
// command substitution between the quoted parts: the shell passes the
// same bytes, and a terminal shows the escape instead of obeying it.
// (A line feed stays quoted: a command substitution would drop it, and
// it moves no cursor back.)
func quoteAlways(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		piece := s[i : i+n]
		i += n
		switch {
		case r == '\'':
			b.WriteString(`'\''`)
		case r == '\n' || textfmt.Visible(piece) == piece:
			b.WriteString(piece)
		default:
			b.WriteString(`'"$(printf '`)
			for j := 0; j < len(piece); j++ {
				fmt.Fprintf(&b, `\%03o`, piece[j])
			}
			b.WriteString(`')"'`)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
