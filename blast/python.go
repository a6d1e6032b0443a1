package blast

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"cchub/lang"
	"cchub/unidiff"
)

// What test selection knows of Python code, whatever runs its tests: the
// lines that change nothing, module names, and who imports what.

var pyImportLine = regexp.MustCompile(`^(import|from)\s`)

// pyInertLines reads the lines of one side of a hunk of a Python file: a
// line outside every definition changes nothing by itself when it is
// blank, a comment or an import. (A bare "import (" is Go's, not
// Python's; the ")" after one is passed over as in Go, as it always has
// been.)
func pyInertLines(unidiff.Status) func(string) bool {
	var block importBlock
	return func(text string) bool {
		t := strings.TrimSpace(text)
		if block.closes(t) {
			return true
		}
		return t == "" || strings.HasPrefix(t, "#") || pyImportLine.MatchString(t)
	}
}

// pyModule is the dotted module name of a Python file.
func pyModule(p string) string {
	m := strings.TrimSuffix(p, path.Ext(p))
	m = strings.TrimSuffix(m, "/__init__")
	return strings.ReplaceAll(m, "/", ".")
}

// pyImports is who imports which Python module. A module is matched by
// its dotted name or any tail of it (a relative import, a source root),
// generously.
type pyImports struct {
	// imp is, for each dotted name a Python file imports (and each of its
	// prefixes), the files importing it.
	imp map[string][]string
	// The answers already given: a radius asks for the same files many
	// times.
	memo  map[string][]string
	tails map[string][]string // a file → the tails of its dotted name
}

func newPyImports(head files) *pyImports {
	g := &pyImports{imp: map[string][]string{}, memo: map[string][]string{}, tails: map[string][]string{}}
	var pyFiles []string
	for p, f := range head {
		if f.Language == lang.Python {
			pyFiles = append(pyFiles, p)
		}
	}
	sort.Strings(pyFiles)
	for _, p := range pyFiles {
		seen := map[string]bool{}
		for _, im := range head[p].Imports {
			for t := strings.TrimLeft(im.Target, "."); t != "" && !seen[t]; {
				seen[t] = true
				g.imp[t] = append(g.imp[t], p)
				i := strings.LastIndex(t, ".")
				if i < 0 {
					break
				}
				t = t[:i]
			}
		}
	}
	return g
}

// importers is the Python files importing p (which may be gone), directly
// or not.
func (g *pyImports) importers(p string) []string {
	if out, ok := g.memo[p]; ok {
		return out
	}
	seen := map[string]bool{p: true}
	queue := []string{p}
	var out []string
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, tail := range g.tailsOf(f) {
			for _, im := range g.imp[tail] {
				if !seen[im] {
					seen[im] = true
					out = append(out, im)
					queue = append(queue, im)
				}
			}
		}
	}
	sort.Strings(out)
	g.memo[p] = out
	return out
}

// importAsk is one file whose importers are asked for, surely or not, and
// why.
type importAsk struct {
	p    string
	sure bool
	why  string
}

// walk calls found, once per file, for the files importing, directly or
// not, the files of asks: each credited to the first ask that reaches it
// (sure asks first), in one walk of the import graph whatever the number
// of asks. A file an earlier ask reached has all its importers reached by
// that ask too, so a later walk stops there.
func (g *pyImports) walk(asks []importAsk, found func(f string, by importAsk)) {
	for _, sure := range []bool{true, false} {
		visited := map[string]bool{}
		for _, a := range asks {
			if sure && !a.sure {
				continue // the sure walk follows sure asks only
			}
			queue := []string{a.p}
			for len(queue) > 0 {
				f := queue[0]
				queue = queue[1:]
				for _, tail := range g.tailsOf(f) {
					for _, im := range g.imp[tail] {
						if visited[im] || im == a.p {
							continue
						}
						visited[im] = true
						queue = append(queue, im)
						found(im, a)
					}
				}
			}
		}
	}
}

// tailsOf is every tail of f's dotted module name (a.b.c, b.c, c).
func (g *pyImports) tailsOf(f string) []string {
	if t, ok := g.tails[f]; ok {
		return t
	}
	parts := strings.Split(pyModule(f), ".")
	t := make([]string, len(parts))
	for i := range parts {
		t[i] = strings.Join(parts[i:], ".")
	}
	g.tails[f] = t
	return t
}
