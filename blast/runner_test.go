package blast

import (
	"path"
	"slices"
	"strings"
	"testing"

	"cchub/codegraph"
	"cchub/lang"
	"cchub/unidiff"
)

// exampleJest is a runner written for this test only, as a file of its
// own would add one: Jest's tests of JavaScript, one command per test
// file naming the tests it runs.
type exampleJest struct{ head files }

func (j *exampleJest) name() string   { return "jest" }
func (j *exampleJest) family() string { return lang.JavaScript }
func (j *exampleJest) testFile(p string) bool {
	return lang.InFamily(p, lang.JavaScript) && lang.IsTestFile(p)
}
func (j *exampleJest) file(s *selector, at fileStep, f changedFile) bool {
	return at == stepCode // its code: the calls say what it changes
}
func (j *exampleJest) inertLines(unidiff.Status) func(string) bool {
	return func(l string) bool {
		return strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "import ")
	}
}
func (j *exampleJest) changed(s *selector, c Change, why string) {
	if c.Def.Test && c.Status != StatusRemoved {
		s.addTest(j, c.Def, true, c.Status)
	}
}
func (j *exampleJest) reached(s *selector, d codegraph.Def, sure bool, why string) bool {
	s.addTest(j, d, sure, why)
	return true
}
func (j *exampleJest) wide(s *selector, p string, sure bool, why string) {
	s.addWhole(scope{runner: j.name(), target: path.Dir(p), tree: true}, sure, why)
}
func (j *exampleJest) groups(s *selector) []built {
	var out []built
	in := func(d codegraph.Def) scope { return scope{runner: j.name(), target: d.Path} }
	for _, u := range s.units(j, in, nil) {
		var names []string
		for _, d := range u.tests {
			names = append(names, d.Name)
		}
		out = append(out, built{TestGroup: TestGroup{Runner: j.name(), Dir: path.Dir(u.target), File: u.target, Tests: names,
			Cautious: !u.sure, Why: u.why, Command: "npx jest " + quoteAlways(u.target) + " -t " + quoteAlways(strings.Join(names, "|"))},
			known: len(names), tests: u.tests})
	}
	return out
}
func (j *exampleJest) suite() []string { return []string{"npx jest"} }

// TestRunnerIsAnAddition registers a runner for a framework the selector
// has never heard of and selects with it: a change to JavaScript now
// selects the Jest test it reaches instead of the whole suite, and the
// reasons that list what cchub selects name JavaScript, with no change to
// the core.
func TestRunnerIsAnAddition(t *testing.T) {
	r := newTestsRepo(t)
	r.write(map[string]string{
		"web/app.js":      "export function add(a, b) { return a + b }\n",
		"web/app.test.js": "import { add } from './app'\n\ntest('adds', () => {\n  add(1, 2)\n})\n",
	})
	r.commit("javascript")
	r.git("tag", "-f", "base")
	kept := makers
	t.Cleanup(func() { makers = kept })
	register(func(head, _ files) runner { return &exampleJest{head: head} })

	s := r.selectOn("js", func() { r.edit("web/app.js", "a + b", "b + a") })
	if s.All != nil || len(s.Groups) != 1 || s.Groups[0].Runner != "jest" || !strings.HasPrefix(s.Groups[0].Command, "npx jest 'web/app.test.js' -t ") {
		t.Fatalf("want the one Jest test the change reaches:\n%s", selJSON(t, s))
	}
	s = r.selectOn("shell", func() { r.write(map[string]string{"tools/run.sh": "echo hi\n"}) })
	if s.All == nil || !strings.Contains(s.All.Why, "cchub selects Go, Python and Javascript tests") {
		t.Fatalf("want everything, with the runners' languages named:\n%s", selJSON(t, s))
	}
	if !slices.Contains(s.Suite, "npx jest") {
		t.Errorf("the whole suite %q lacks the runner's command", s.Suite)
	}
}
