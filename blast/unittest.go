package blast

import (
	"cchub/codegraph"
	"cchub/lang"
)

func init() { registerNamer(unittest{}) }

// unittest is Python's unittest, run by python -m unittest: the test
// methods of TestCase classes, named pkg.mod.Class.test_name (the module
// from the file's path), a whole file by its module. pytest collects the
// same classes, so the groups are pytest's; unittest names in them the
// tests it can run too (TestGroup.Unittest), for suites run with
// python -m unittest.
type unittest struct{}

func (unittest) family() string { return lang.Python }

func (unittest) annotate(g *TestGroup, tests []codegraph.Def) {
	switch {
	case g.Whole && g.File != "":
		g.Unittest = []string{pyModule(g.File)}
	case !g.Whole:
		for _, d := range tests {
			if d.Type != "" {
				g.Unittest = append(g.Unittest, pyModule(g.File)+"."+d.Type+"."+d.Name)
			}
		}
	}
}
