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

// exampleCargo is a runner written for this test only, as a file of its
// own would add one: cargo's tests of Rust, one command per file naming
// the tests it runs.
type exampleCargo struct{ head files }

func (j *exampleCargo) name() string   { return "cargo" }
func (j *exampleCargo) family() string { return lang.Rust }
func (j *exampleCargo) testFile(p string) bool {
	return lang.InFamily(p, lang.Rust)
}
func (j *exampleCargo) file(s *selector, at fileStep, f changedFile) bool {
	return at == stepCode // its code: the calls say what it changes
}
func (j *exampleCargo) inertLines(unidiff.Status) func(string) bool {
	return func(l string) bool {
		return strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "use ")
	}
}
func (j *exampleCargo) changed(s *selector, c Change, why string) {
	if c.Def.Test && c.Status != StatusRemoved {
		s.addTest(j, c.Def, true, c.Status)
	}
}
func (j *exampleCargo) reached(s *selector, d codegraph.Def, sure bool, why string) bool {
	s.addTest(j, d, sure, why)
	return true
}
func (j *exampleCargo) wide(s *selector, p string, sure bool, why string) {
	s.addWhole(scope{runner: j.name(), target: path.Dir(p), tree: true}, sure, why)
}
func (j *exampleCargo) groups(s *selector) []built {
	var out []built
	in := func(d codegraph.Def) scope { return scope{runner: j.name(), target: d.Path} }
	for _, u := range s.units(j, in, nil) {
		var names []string
		for _, d := range u.tests {
			names = append(names, d.Name)
		}
		out = append(out, built{TestGroup: TestGroup{Runner: j.name(), Dir: path.Dir(u.target), File: u.target, Tests: names,
			Cautious: !u.sure, Why: u.why, Command: "cargo test " + quoteAlways(strings.Join(names, "|"))},
			known: len(names), tests: u.tests})
	}
	return out
}
func (j *exampleCargo) suite() []string { return []string{"cargo test"} }

// TestRunnerIsAnAddition registers a runner for a framework the selector
// has never heard of and selects with it: a change to JavaScript now
// selects the Jest test it reaches instead of the whole suite, and the
// reasons that list what cchub selects name JavaScript, with no change to
// the core.
func TestRunnerIsAnAddition(t *testing.T) {
	r := newTestsRepo(t)
	r.write(map[string]string{
		"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    add(1, 2);\n}\n",
	})
	r.commit("rust")
	r.git("tag", "-f", "base")
	kept := makers
	t.Cleanup(func() { makers = kept })
	register(func(head, _ files, _ func(string) ([]byte, error)) runner { return &exampleCargo{head: head} })

	s := r.selectOn("rs", func() { r.edit("src/lib.rs", "a + b", "b + a") })
	if s.All != nil || len(s.Groups) != 1 || s.Groups[0].Runner != "cargo" || s.Groups[0].Command != "cargo test 'adds'" {
		t.Fatalf("want the one Rust test the change reaches:\n%s", selJSON(t, s))
	}
	s = r.selectOn("shell", func() { r.write(map[string]string{"tools/run.sh": "echo hi\n"}) })
	if s.All == nil || !strings.Contains(s.All.Why, "cchub selects Go, Python, JavaScript and Rust tests") {
		t.Fatalf("want everything, with the runners' languages named:\n%s", selJSON(t, s))
	}
	if !slices.Contains(s.Suite, "cargo test") {
		t.Errorf("the whole suite %q lacks the runner's command", s.Suite)
	}
}
