package blast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace/wstest"
)

// Suite frameworks: a function broken under check.v1 (gocheck) and
// testify suites selects the suite's entry test with the framework's
// filter naming the reached methods; each test go test sees fail is
// selected, and the selected commands fail as the whole suite does.
func TestSelectionCoversGoSuites(t *testing.T) {
	files := map[string]string{}
	root := filepath.Join("testdata", "gosuites")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	goEnv := goRunEnv(t)
	r := newRepoOf(t, files)
	env := append(goEnv, "GOPROXY=off", "HOME="+t.TempDir())
	run := func(command string) (string, error) {
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env = r.dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("go test ./..."); err != nil {
		wstest.RequirePeer(t, "check.v1 and testify in the module cache (make test downloads them): "+out, false)
	}
	mutants := []struct {
		file, at string
		want     string // the selected commands
	}{
		{"conf/conf.go", "func (r *Remote) Validate() error {", "go test ./conf -run '^(Test)$' -check.f '^(ConfigSuite\\.TestValidate|ConfigSuite\\.TestValidateMissingName)$'\n"},
		{"conf/conf.go", "func Normalize(url string) string {", "go test ./conf -run '^(Test)$' -check.f '^(URLSuite\\.TestNormalize)$'\n"},
		{"repo/repo.go", "func (r *Repo) Branch(name string) {", "go test ./repo -run '^(TestRepoSuite)$' -testify.m '^(TestBranch)$'\n"},
		{"repo/repo.go", "func Head() string {", "go test ./repo -run '^(TestHeadSuite|TestPlain)$' -testify.m '^(TestHead)$'\n"},
		{"specs/calc.go", "func Double(n int) int {", "go test ./specs -run '^(TestSpecs)$' -ginkgo.focus 'Calc doubling doubles two$'\n"},
		{"specs/calc.go", "func Negate(n int) int {", "go test ./specs -run '^(TestSpecs)$' -ginkgo.focus 'Calc negates \\(a sign\\)$'\n"},
	}
	for i, m := range mutants {
		branch := fmt.Sprintf("suite-mutant%d", i)
		s := r.selectOn(branch, func() { r.edit(m.file, m.at, m.at+"\n\tpanic(\"mutant\")") })
		if got := commandsOf(t, s); got != m.want {
			t.Errorf("%s %s: commands\n%s\nwant\n%s", m.file, m.at, got, m.want)
		}
		r.git("checkout", "-q", branch)
		out, _ := run("go test -count=1 -json ./...")
		failing := 0
		for _, line := range bytes.Split([]byte(out), []byte("\n")) {
			var ev struct{ Action, Package, Test string }
			if json.Unmarshal(line, &ev) != nil || ev.Action != "fail" || ev.Test == "" || strings.Contains(ev.Test, "/") {
				continue
			}
			failing++
			if dir := strings.TrimPrefix(ev.Package, "example.com/suites/"); !selects(s, dir, ev.Test) {
				t.Errorf("%s %s: failing %s in %s is not selected:\n%s", m.file, m.at, ev.Test, dir, selJSON(t, s))
			}
		}
		if failing == 0 {
			t.Fatalf("%s %s: no test fails; the mutant measures nothing:\n%s", m.file, m.at, out)
		}
		for _, g := range s.Groups {
			if out, err := run(g.Command + " -count=1"); err == nil {
				t.Errorf("%s %s: the selected %q passes where the suite fails:\n%s", m.file, m.at, g.Command, out)
			}
		}
		r.git("checkout", "-q", "base")
	}

	// A suite's fixture selects its suite whole; a fixture of a type the
	// package's tests do not register selects the package whole.
	s := r.selectOn("fixture", func() {
		r.edit("conf/conf_test.go", `s.r = &Remote{Name: "origin", URL: "https://x/"}`, `s.r = &Remote{Name: "origin", URL: "https://y/"}`)
	})
	if got, want := commandsOf(t, s), "go test ./conf -run '^(Test)$' -check.f '^(ConfigSuite)$'\n"; got != want {
		t.Errorf("a changed SetUpTest: %q, want %q", got, want)
	}
	s = r.selectOn("testify-fixture", func() { r.edit("repo/repo_test.go", "s.r = &Repo{}", "s.r = new(Repo)") })
	if got, want := commandsOf(t, s), "go test ./repo -run '^(TestRepoSuite)$'\n"; got != want {
		t.Errorf("a changed SetupTest: %q, want %q", got, want)
	}
	// A spec's own line changed: that spec; a container's: its specs.
	s = r.selectOn("spec-line", func() { r.edit("specs/calc_test.go", "Equal(4)", "Equal(2 * 2)") })
	if got, want := commandsOf(t, s), "go test ./specs -run '^(TestSpecs)$' -ginkgo.focus 'Calc doubling doubles two$'\n"; got != want {
		t.Errorf("a changed spec: %q, want %q", got, want)
	}
	s = r.selectOn("container-line", func() {
		r.edit("specs/calc_test.go", "\tContext(\"doubling\", func() {\n", "\tContext(\"doubling\", func() {\n\t\tBeforeEach(func() {})\n")
	})
	if got, want := commandsOf(t, s), "go test ./specs -run '^(TestSpecs)$' -ginkgo.focus 'Calc doubling '\n"; got != want {
		t.Errorf("a changed container: %q, want %q", got, want)
	}
}

// A method of a test file's type that is no suite (no test or fixture
// method, not registered) is a helper: the suite methods calling it are
// selected, with the filter, not the package whole; a base suite's
// method (it has a fixture) still selects the package.
func TestSuiteHelperTypeIsAHelper(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":     "module example.com/h\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\nfunc F() int {\n\treturn 1\n}\n\nfunc G() int {\n\treturn 1\n}\n",
		"lib/lib_test.go": `package lib

import (
	"testing"

	. "gopkg.in/check.v1"
)

func Test(t *testing.T) { TestingT(t) }

type S struct{ Base }

var _ = Suite(&S{})

type helper struct{}

func (helper) Do() int { return F() }

type Base struct{}

func (b *Base) SetUpTest(c *C) {}

func (b *Base) Make() int { return G() }

func (s *S) TestA(c *C) { _ = helper{}.Do() }

func (s *S) TestB(c *C) { _ = s.Make() }

func (s *S) TestC(c *C) {}
`,
	})
	s := r.selectOn("f", func() { r.edit("lib/lib.go", "func F() int {\n\treturn 1", "func F() int {\n\treturn 2") })
	if got, want := commandsOf(t, s), "go test ./lib -run '^(Test)$' -check.f '^(S\\.TestA)$'\n"; got != want {
		t.Errorf("a helper type's method: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	s = r.selectOn("g", func() { r.edit("lib/lib.go", "func G() int {\n\treturn 1", "func G() int {\n\treturn 2") })
	if got, want := commandsOf(t, s), "go test ./lib\n"; got != want {
		t.Errorf("a base suite's method: %q, want %q\n%s", got, want, selJSON(t, s))
	}
}
