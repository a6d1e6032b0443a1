package blast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSelectNestedModule: a module below the workspace root runs with
// go test -C, its package relative to the module.
func TestSelectNestedModule(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"svc/go.mod":          "module example.com/svc\n\ngo 1.22\n",
		"svc/api/api.go":      "package api\n\nfunc Ping() string { return \"pong\" }\n",
		"svc/api/api_test.go": "package api\n\nimport \"testing\"\n\nfunc TestPing(t *testing.T) {\n\tif Ping() == \"\" {\n\t\tt.Fatal(\"ping\")\n\t}\n}\n",
	})
	r.commit("svc")
	r.git("tag", "-f", "base")
	s := r.selectOn("ping", func() { r.edit("svc/api/api.go", `"pong"`, `"pong!"`) })
	if got, want := commandsOf(t, s), "go test -C svc ./api -run '^(TestPing)$'\n"; got != want {
		t.Errorf("commands = %q, want %q", got, want)
	}
	if len(s.Groups) != 1 || s.Groups[0].Package != "./api" || s.Groups[0].Dir != "svc/api" {
		t.Errorf("groups: %s", selJSON(t, s))
	}
	s = r.selectOn("svc-mod", func() { r.edit("svc/go.mod", "go 1.22", "go 1.23") })
	if got, want := commandsOf(t, s), "go test ./...\ngo test -C svc ./...\npython -m pytest\n"; got != want {
		t.Errorf("the whole suite: %q, want %q", got, want)
	}
}

// Two tests of one package may share a name (files for different
// platforms): the selection lists them in one order, run after run.
func TestSelectSameNamedTestsInOneOrder(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"go.mod":             "module example.com/m\n\ngo 1.22\n",
		"p/p.go":             "package p\n\nfunc Limit() int { return 1 }\n\nfunc viaA() int { return Limit() }\n\nfunc viaB() int { return Limit() + 1 }\n",
		"p/l_linux_test.go":  "package p\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) { _ = viaA() }\n",
		"p/l_darwin_test.go": "package p\n\nimport \"testing\"\n\nfunc TestLimit(t *testing.T) { _ = viaB() }\n",
	})
	r.commit("base")
	r.git("tag", "-f", "base")
	var first string
	for i := range 8 {
		s := r.selectOn(fmt.Sprintf("limit%d", i), func() { r.edit("p/p.go", "return 1", "return 2") })
		got := selJSON(t, s)
		if i == 0 {
			first = got
			if !strings.Contains(got, "viaA") || !strings.Contains(got, "viaB") {
				t.Fatalf("both tests' reasons: %s", got)
			}
		} else if got != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, got, first)
		}
		r.git("checkout", "-q", "--", "p/p.go")
	}
}

// TestSelectGoRunSelects runs go test -list with the -run of the
// selection, in a real module: it must list exactly the tests reached (an
// example, a fuzz target through a helper and a test of an external test
// package among them), not one whose name starts the same.
func TestSelectGoRunSelects(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	// The user's build cache, asked before newRepo moves HOME: a fresh
	// one would build the standard library again.
	env, err := exec.Command(goBin, "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	caches := strings.Fields(string(env))
	r := newRepo(t)
	r.write(map[string]string{
		"calc/calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n",
		"calc/calc_test.go": `package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("add")
	}
}

func TestAddMore(t *testing.T) {
	if Sub(3, 2) != 1 {
		t.Fatal("sub")
	}
}

func ExampleAdd() {
	fmt.Println(Add(1, 1))
	// Output: 2
}

func FuzzSub(f *testing.F) {
	f.Fuzz(func(t *testing.T, a int) { _ = Sub(a, a) })
}

func FuzzAdd(f *testing.F) {
	f.Fuzz(func(t *testing.T, a int) { _ = Testable(a) })
}

// Testable is a helper, not a test: go test does not run it.
func Testable(a int) int { return Add(a, a) }
`,
		"calc/ext_test.go": `package calc_test

import (
	"testing"

	"example.com/shop/calc"
)

func TestExternal(t *testing.T) {
	if calc.Add(0, 0) != 0 {
		t.Fatal("ext")
	}
}
`,
	})
	r.commit("calc")
	r.git("tag", "-f", "base")
	s := r.selectOn("add", func() { r.edit("calc/calc.go", "return a + b", "return b + a") })
	want := "go test ./calc -run '^(ExampleAdd|FuzzAdd|TestAdd|TestExternal)$'\n"
	if got := commandsOf(t, s); got != want {
		t.Fatalf("commands = %q, want %q", got, want)
	}
	run := s.Groups[0].Command[strings.Index(s.Groups[0].Command, "'")+1 : len(s.Groups[0].Command)-1]
	r.git("checkout", "-q", "add")
	cmd := exec.Command(goBin, "test", "-list", run, "./calc")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if len(caches) == 2 {
		cmd.Env = append(cmd.Env, "GOCACHE="+caches[0], "GOMODCACHE="+caches[1])
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -list: %v\n%s", err, out)
	}
	var listed []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "ok ") {
			listed = append(listed, l)
		}
	}
	slices.Sort(listed)
	if want := []string{"ExampleAdd", "FuzzAdd", "TestAdd", "TestExternal"}; !slices.Equal(listed, want) {
		t.Errorf("go test -list %q ./calc lists %q, want %q", run, listed, want)
	}
}

// TestSelectionCoversFailingTests mutates each function of the fixture's
// Go packages in turn (it panics), runs the whole suite with go test, and
// requires every failing test to be selected: the selection is safe.
func TestSelectionCoversFailingTests(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	goEnv := goRunEnv(t)
	r := newTestsRepo(t)
	env := append(goEnv, "HOME="+t.TempDir())
	mutants := []struct{ file, at string }{
		{"store/store.go", "func Total(s *Store) int {"},
		{"store/store.go", "func (s *Store) Add(name string, n int) {"},
		{"store/store.go", "func (s *Store) Count(name string) int {"},
		{"report/format.go", "func Format(n int) string {"},
		{"report/report.go", "func Summary(s *store.Store) string {"},
	}
	for i, m := range mutants {
		branch := fmt.Sprintf("mutant%d", i)
		s := r.selectOn(branch, func() { r.edit(m.file, m.at, m.at+"\n\tpanic(\"mutant\")") })
		r.git("checkout", "-q", branch) // selectOn leaves base checked out
		failing := failingGoTests(t, r.dir, env)
		if len(failing) == 0 {
			t.Fatalf("%s %s: no test fails; the mutant measures nothing", m.file, m.at)
		}
		for _, f := range failing {
			if !selects(s, f[0], f[1]) {
				t.Errorf("%s %s: failing test %s in %s is not selected:\n%s", m.file, m.at, f[1], f[0], selJSON(t, s))
			}
		}
		r.git("checkout", "-q", "base")
	}
}

// goRunEnv is the environment a test runs go in with: this process's,
// with go's caches where they are now (newRepo then points HOME into
// the repository), modules resolved from go.mod, no workspace, no
// telemetry. Call it before newRepo.
func goRunEnv(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(out))
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTELEMETRY=off", "GOCACHE="+caches[0], "GOMODCACHE="+caches[1])
}

// failingGoTests runs every Go test of the module at dir and returns the
// failing top-level tests as {dir, name}.
func failingGoTests(t *testing.T, dir string, env []string) [][2]string {
	t.Helper()
	cmd := exec.Command("go", "test", "-count=1", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = env
	out, _ := cmd.Output() // failing tests exit 1; a build failure leaves no failing test, which the caller refuses
	var failing [][2]string
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct{ Action, Package, Test string }
		if json.Unmarshal(line, &ev) != nil || ev.Action != "fail" || ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		failing = append(failing, [2]string{strings.TrimPrefix(strings.TrimPrefix(ev.Package, "example.com/shop"), "/"), ev.Test})
	}
	return failing
}

// selects says whether s runs Go test name of the package in dir.
func selects(s *Selection, dir, name string) bool {
	if dir == "" {
		dir = "."
	}
	if s.All != nil {
		return true
	}
	for _, g := range s.Groups {
		if g.Runner == "go" && g.Dir == dir && (g.Whole || slices.Contains(g.Tests, name)) {
			return true
		}
	}
	return false
}

// A reached init runs before every test of its package: a test file's
// init that reaches the change selects its package whole (cobra's doc
// tests build their commands in one), a code file's init its package
// and every package importing it.
func TestSelectReachedInit(t *testing.T) {
	r := newRepoOf(t, map[string]string{
		"go.mod":          "module example.com/ini\n\ngo 1.22\n",
		"p/p.go":          "package p\n\nfunc Setup() int {\n\treturn 1\n}\n\nfunc Other() int { return 2 }\n",
		"p/p_test.go":     "package p\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) { _ = Other() }\n",
		"doc/doc.go":      "package doc\n\nfunc Render() string { return \"x\" }\n",
		"doc/doc_test.go": "package doc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/ini/p\"\n)\n\nvar n int\n\nfunc init() { n = p.Setup() }\n\nfunc TestRender(t *testing.T) { _ = Render() }\n",
		"other/o.go":      "package other\n\nfunc O() int { return 0 }\n",
		"other/o_test.go": "package other\n\nimport \"testing\"\n\nfunc TestO(t *testing.T) { _ = O() }\n",
	})
	s := r.selectOn("setup", func() { r.edit("p/p.go", "return 1", "return 3") })
	if got, want := commandsOf(t, s), "go test ./doc\n"; got != want {
		t.Errorf("a test file's init reaching the change: %q, want %q\n%s", got, want, selJSON(t, s))
	}
	if len(s.Groups) == 1 && !strings.Contains(s.Groups[0].Why, "it runs when its package loads") {
		t.Errorf("why: %q", s.Groups[0].Why)
	}
}
