package blast

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cchub/codegraph"
	"cchub/syntax"
	"cchub/workspace"
)

func TestBlastBodyChange(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("body", func() {
		r.edit("store/store.go", "t += n", "t += n * 1")
		r.edit("tools/stats.py", "return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)")
	})
	if got, want := changedSet(rep), []string{"modified Total store/store.go", "modified mean tools/stats.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	if got, want := reachedAt(rep), []string{"Print@2", "Summary@1", "TestTotal@1", "main@3", "spread@1", "test_spread@2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached = %v, want %v", got, want)
	}
	if got, want := testNames(rep), []string{"TestTotal", "test_spread"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tests = %v, want %v", got, want)
	}
	if got, want := rep.Files, []string{"main.go", "report/report.go", "store/store_test.go", "tools/stats.py", "tools/test_stats.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	total := changedNamed(t, rep, "Total")
	if total.StartLine != 18 || total.EndLine != 24 || total.Reached != 4 || total.Callers != 2 || total.TestsReached != 1 {
		t.Errorf("Total: %+v; want lines 18-24, 4 reached, 2 callers, 1 test", total)
	}

	// Depth and confidence bound the radius.
	r.git("checkout", "-q", "body")
	if got, want := reachedAt(r.run(Options{Base: "base", MaxDepth: 1})), []string{"Summary@1", "TestTotal@1", "spread@1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached within 1 call = %v, want %v", got, want)
	}
	if got, want := reachedAt(r.run(Options{Base: "base", MinConfidence: "exact"})), []string{"TestTotal@1", "spread@1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached by exact edges = %v, want %v", got, want)
	}

	// The text form says the same for a person.
	var b strings.Builder
	if err := rep.WriteText(&b, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"store/store.go:18-24\tfunc Total\tmodified; reaches 4 (1 test)\n",
		"  distance 1:\n",
		"    report/report.go:9-11\tfunc Summary [import] via Total <- Summary\n",
		"    main.go:8-12\tfunc main [import] via Total <- Summary <- Print <- main\n",
		"tests (2):\n  store/store_test.go:13-19\tTestTotal (distance 1)\n",
		"summary: 2 definitions changed (2 modified); 6 definitions reached within 3 calls in 5 files; 2 tests\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text has no %q:\n%s", want, b.String())
		}
	}
}

func TestBlastWorkingTreeChange(t *testing.T) {
	r := newRepo(t)
	// Not committed: the working tree is head.
	r.edit("store/store.go", "return s.items[name]", "return s.items[name] + 0")
	rep := r.run(Options{Base: "base"})
	if got, want := changedSet(rep), []string{"modified Store.Count store/store.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	if got, want := testNames(rep), []string{"TestAdd"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tests = %v, want %v", got, want)
	}
	if !rep.Head.WorkingTree || rep.Base.Ref != "base" || len(rep.Base.Commit) < 40 {
		t.Errorf("revisions: base %+v, head %+v", rep.Base, rep.Head)
	}
}

func TestBlastRenameFunction(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("rename", func() {
		r.edit("report/report.go", "func Summary(", "func Describe(")
		r.edit("report/report.go", "fmt.Println(Summary(s))", "fmt.Println(Describe(s))")
	})
	want := []string{"added Describe report/report.go", "modified Print report/report.go", "removed Summary report/report.go"}
	if got := changedSet(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("changed = %v, want %v", got, want)
	}
	if s := changedNamed(t, rep, "Summary"); s.Callers != 0 || s.Reached != 0 || s.RemovedAt == nil || s.RemovedAt.StartLine != 9 {
		t.Errorf("Summary: %+v; want no callers left, removed at report/report.go:9", s)
	}
	// Print is changed, not reached; main calls it.
	if got, want := reachedAt(rep), []string{"main@1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached = %v, want %v", got, want)
	}
}

func TestBlastDeleteFile(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("delete", func() {
		r.git("rm", "-q", "report/format.go", "tools/test_stats.py")
	})
	want := []string{"removed Format report/format.go", "removed test_spread tools/test_stats.py"}
	if got := changedSet(rep); !reflect.DeepEqual(got, want) {
		t.Fatalf("changed = %v, want %v", got, want)
	}
	// Summary still calls Format: it will break, and so reaches on.
	f := changedNamed(t, rep, "Format")
	if f.Callers != 1 || f.Reached != 3 || f.RemovedAt != nil || f.StartLine != 5 || f.EndLine != 7 {
		t.Errorf("Format: %+v; want 1 caller left, 3 reached, at base report/format.go:5-7", f)
	}
	if got, want := reachedAt(rep), []string{"Print@2", "Summary@1", "main@3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached = %v, want %v", got, want)
	}
	if len(rep.Tests) != 0 {
		t.Errorf("tests = %v; a deleted test is not one to run", testNames(rep))
	}
}

func TestBlastRenameFileUnchanged(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("move", func() {
		r.git("mv", "store/store.go", "store/inventory.go")
		r.git("mv", "tools/stats.py", "tools/statistics.py")
	})
	if len(rep.Changed) != 0 || len(rep.Reached) != 0 {
		t.Errorf("a file renamed without a change changed %v and reached %v", changedSet(rep), reachedAt(rep))
	}
}

func TestBlastRenameFileAndEditIt(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("move-edit", func() {
		r.git("mv", "store/store.go", "store/inventory.go")
		r.edit("store/inventory.go", "return s.items[name]", "return s.items[name] + 0")
	})
	// Only the function whose lines changed; the others moved with the file.
	if got, want := changedSet(rep), []string{"modified Store.Count store/inventory.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
}

func TestBlastMoveFunction(t *testing.T) {
	r := newRepo(t)
	rep := r.scenario("move-func", func() {
		r.edit("report/format.go", `func Format(n int) string {
	return "total: " + strconv.Itoa(n)
}
`, "var _ = strconv.Itoa\n")
		r.edit("report/report.go", "func Print(", `func Format(n int) string {
	return "total: " + fmt.Sprint(n)
}

func Print(`)
	})
	if got, want := changedSet(rep), []string{"moved Format report/report.go"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("changed = %v, want %v", got, want)
	}
	if f := changedNamed(t, rep, "Format"); f.Was == nil || f.Was.Path != "report/format.go" || f.Was.StartLine != 5 {
		t.Errorf("Format was %+v; want report/format.go:5", f.Was)
	}
}

func TestBlastInnermost(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{"tools/shape.py": `class Shape:
    sides = 0

    def area(self):
        return 0

    def describe(self):
        return "shape with %d sides" % self.sides


def show(s):
    def label():
        return "shape"

    return label() + s.describe()
`})
	r.commit("shape")
	r.git("tag", "-f", "base")
	for _, tc := range []struct {
		branch string
		edits  [][2]string
		want   []string
	}{
		// A line in a method is the method's, not its class's.
		{"method", [][2]string{{"return 0", "return 1"}}, []string{"modified Shape.area tools/shape.py"}},
		// A line in the class but in none of its methods is the class's.
		{"class", [][2]string{{"sides = 0", "sides = 3"}, {"return 0", "return 1"}},
			[]string{"modified Shape tools/shape.py", "modified Shape.area tools/shape.py"}},
		// A function nested in another is not a definition of the graph
		// (outline lists none): its lines are the enclosing function's.
		{"nested", [][2]string{{`return "shape"`, `return "a shape"`}}, []string{"modified show tools/shape.py"}},
	} {
		rep := r.scenario(tc.branch, func() {
			for _, e := range tc.edits {
				r.edit("tools/shape.py", e[0], e[1])
			}
		})
		if got := changedSet(rep); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: changed = %v, want %v", tc.branch, got, tc.want)
		}
	}
}

func TestBlastMergeBase(t *testing.T) {
	r := newRepo(t)
	r.git("checkout", "-q", "-b", "feature", "base")
	r.edit("tools/stats.py", "return max(xs) - m", "return max(xs) - m + 0")
	r.commit("feature")
	// main moves on after the branch: a plain diff would show it undone.
	r.git("checkout", "-q", "main")
	r.edit("store/store.go", "t += n", "t += n * 1")
	r.commit("main moves on")
	r.git("checkout", "-q", "feature")

	plain := r.run(Options{Base: "main"})
	if got, want := changedSet(plain), []string{"modified Total store/store.go", "modified spread tools/stats.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("from main: changed = %v, want %v", got, want)
	}
	mb := r.run(Options{Base: "main", MergeBase: true})
	if got, want := changedSet(mb), []string{"modified spread tools/stats.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("from the merge base: changed = %v, want %v", got, want)
	}
	if len(mb.Notes) == 0 || !strings.Contains(mb.Notes[0], "merge base") {
		t.Errorf("notes = %q; want the merge base named", mb.Notes)
	}
}

func TestBlastWorkspaceInSubdirectory(t *testing.T) {
	r := newRepo(t)
	r.edit("report/report.go", "fmt.Println(Summary(s))", "fmt.Println(Summary(s), 1)")
	r.edit("store/store.go", "t += n", "t += n * 1")
	root, err := workspace.Open(filepath.Join(r.dir, "report"))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	rep, err := Run(context.Background(), root, cache, Options{Base: "base"}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	// Paths are relative to the workspace; store/ is outside it.
	if got, want := changedSet(rep), []string{"modified Print report.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	// The same from git, without the working tree.
	r.commit("sub")
	r.git("checkout", "-q", "base")
	fromGit, err := Run(context.Background(), root, cache, Options{Base: "base", Head: "main"}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	fromGit.Head = rep.Head
	if a, b := jsonOf(t, rep), jsonOf(t, fromGit); a != b {
		t.Errorf("--head in a subdirectory differs:\nworking tree: %s\nfrom git:     %s", a, b)
	}
}

func TestBlastBadInput(t *testing.T) {
	r := newRepo(t)
	root, err := workspace.Open(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Base: "nope"}, `--base "nope" names no commit`},
		{Options{Base: "--output=/tmp/x"}, "is not a revision"},
		{Options{Base: "base", Head: "nope"}, `--head "nope" names no commit`},
		{Options{Base: "base", MinConfidence: "sure"}, "none of exact, import, name-only"},
	} {
		if _, err := Run(context.Background(), root, cache, tc.o, Deps{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v; want an error with %q", tc.o, err, tc.want)
		}
	}
	notRepo, err := workspace.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer notRepo.Close()
	if _, err := Run(context.Background(), notRepo, cache, Options{Base: "main"}, Deps{}); err == nil || !strings.Contains(err.Error(), "not inside a git work tree") {
		t.Errorf("outside a repository: %v", err)
	}
}

// TestBlastJSONShape decodes the JSON form strictly into the shape its
// documentation (Report's comment) gives, written out again here: a field
// that is missing, renamed or undocumented fails.
func TestBlastJSONShape(t *testing.T) {
	type definition struct {
		Name          string `json:"name"`
		QualifiedName string `json:"qualified_name"`
		Kind          string `json:"kind"`
		Language      string `json:"language"`
		Path          string `json:"path"`
		StartLine     int    `json:"start_line"`
		EndLine       int    `json:"end_line"`
		Test          *bool  `json:"test"`
	}
	type place struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	type revision struct {
		Ref         *string `json:"ref"`
		Commit      *string `json:"commit"`
		WorkingTree *bool   `json:"working_tree"`
	}
	type doc struct {
		Version       int      `json:"version"`
		Base          revision `json:"base"`
		Head          revision `json:"head"`
		MaxDepth      int      `json:"max_depth"`
		MinConfidence string   `json:"min_confidence"`
		Changed       []struct {
			definition
			Status       string `json:"status"`
			Was          *place `json:"was"`
			RemovedAt    *place `json:"removed_at"`
			Reached      *int   `json:"reached"`
			Callers      *int   `json:"callers"`
			TestsReached *int   `json:"tests_reached"`
		} `json:"changed"`
		Reached []struct {
			definition
			Distance   int      `json:"distance"`
			Confidence string   `json:"confidence"`
			Via        []string `json:"via"`
		} `json:"reached"`
		Files []string `json:"files"`
		Tests []struct {
			definition
			Distance *int `json:"distance"`
		} `json:"tests"`
		Notes        []string       `json:"notes"`
		Evidence     map[string]int `json:"evidence"`
		Confirmation *struct {
			Asked, Confirmed, Refuted int
			Unconfirmed               string
		} `json:"confirmation"`
		Summary *struct {
			Changed, Modified, Added, Removed, Moved, Reached, Files, Tests *int
		} `json:"summary"`
	}
	r := newRepo(t)
	rep := r.scenario("shape", func() {
		r.edit("store/store.go", "t += n", "t += n * 1")
		r.git("rm", "-q", "report/format.go")
		r.edit("report/report.go", "func Print(", "func Format(n int) string { return fmt.Sprint(n) }\n\nfunc Print(")
	})
	for _, tc := range []*Report{rep, r.run(Options{Base: "base", Head: "base"})} {
		var d doc
		dec := json.NewDecoder(strings.NewReader(jsonOf(t, tc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("the JSON form is not the documented shape: %v", err)
		}
		if d.Version != 1 || d.Base.Ref == nil || d.Base.Commit == nil || d.Head.WorkingTree == nil || d.MaxDepth != 3 || d.MinConfidence != "possible" || d.Summary == nil || d.Evidence == nil {
			t.Errorf("header: %+v", d)
		}
		if d.Changed == nil || d.Reached == nil || d.Files == nil || d.Tests == nil || d.Notes == nil {
			t.Errorf("a list is null, not empty: %+v", d)
		}
		for _, c := range d.Changed {
			if c.Name == "" || c.QualifiedName == "" || c.Kind == "" || c.Language == "" || c.Path == "" || c.StartLine < 1 || c.EndLine < c.StartLine || c.Test == nil ||
				c.Reached == nil || c.Callers == nil || c.TestsReached == nil || !slices.Contains([]string{"modified", "added", "removed", "moved"}, c.Status) {
				t.Errorf("changed entry: %+v", c)
			}
			if (c.Was != nil) != (c.Status == "moved") {
				t.Errorf("%s: was %+v with status %s", c.QualifiedName, c.Was, c.Status)
			}
		}
		for _, re := range d.Reached {
			if re.Distance < 1 || len(re.Via) < 2 || !slices.Contains([]string{"exact", "import", "name-only"}, re.Confidence) {
				t.Errorf("reached entry: %+v", re)
			}
		}
		for _, te := range d.Tests {
			if te.Distance == nil || te.Test == nil || !*te.Test {
				t.Errorf("test entry: %+v", te)
			}
		}
	}
	if got, want := changedSet(rep), []string{"modified Total store/store.go", "moved Format report/report.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
}

// TestBlastSameNames: the graph addresses a definition by path and name.
// Definitions of one file with the same qualified name are counted as
// one; a function that shares its name with a method of its file is the
// function (the method is Type.Name), so its callers are counted.
func TestBlastSameNames(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"tools/dup.py": "def f():\n    return 1\n\n\ndef f():\n    return 2\n\n\ndef g():\n    return f()\n",
		"store/get.go": "package store\n\nfunc Get() int { return 1 }\n\nfunc (s *Store) Get() int { return 2 }\n\nfunc Use() int { return Get() }\n",
	})
	r.commit("same names")
	r.git("tag", "-f", "base")
	rep := r.scenario("same", func() {
		r.edit("tools/dup.py", "return 1", "return 3")
		r.edit("store/get.go", "func Get() int { return 1 }", "func Get() int { return 3 }")
	})
	if got, want := changedSet(rep), []string{"modified Get store/get.go", "modified f tools/dup.py"}; !reflect.DeepEqual(got, want) {
		t.Errorf("changed = %v, want %v", got, want)
	}
	if got, want := reachedAt(rep), []string{"Use@1", "g@1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reached = %v, want %v", got, want)
	}
	if len(rep.Notes) != 0 {
		t.Errorf("notes = %q; want none", rep.Notes)
	}
}

// A confirmation is asked about the weak edges of the working tree's
// radius, each once, and its answers are counted in the report; with
// --head (a revision the server does not see) it is not asked, and a note
// says so. The language server's side is hub's (tested with real
// servers): here a fake refutes every name-only edge.
func TestBlastConfirmation(t *testing.T) {
	r := newRepo(t)
	r.write(map[string]string{
		"store/other.go": "package store\n\ntype Other struct{}\n\nfunc (Other) Count(name string) int { return 0 }\n\nfunc Use(v interface{ Count(string) int }) int { return v.Count(\"a\") }\n",
	})
	r.commit("an interface literal: v.Count reaches Count by name")
	r.git("tag", "-f", "base")
	r.git("checkout", "-q", "-b", "weak", "base")
	r.edit("store/store.go", "return s.items[name]", "return s.items[name] + 0")
	r.commit("weak")
	asked := map[string]int{}
	fakeRefuteNameOnly := func(_ context.Context, es []codegraph.Edge) ([]string, string) {
		vs := make([]string, len(es))
		for i, e := range es {
			asked[fmt.Sprintf("%s:%d:%d>%s", e.Path, e.Line, e.Col, e.Callee.Qual())]++
			if e.Confidence == codegraph.NameOnly {
				vs[i] = codegraph.Refuted
			}
		}
		return vs, ""
	}
	before := r.run(Options{Base: "base"})
	rep := r.runWith(Options{Base: "base", Confirm: true}, Deps{Confirm: fakeRefuteNameOnly})
	if before.Evidence[codegraph.NameOnly] == 0 {
		t.Fatalf("the fixture has no name-only edge to confirm: %+v", before.Evidence)
	}
	if rep.Confirmation == nil || rep.Confirmation.Asked == 0 || rep.Confirmation.Refuted == 0 || rep.Evidence[codegraph.NameOnly] != 0 {
		t.Errorf("confirmation %+v, evidence %+v: want the name-only edges asked, refuted and left out", rep.Confirmation, rep.Evidence)
	}
	for e, n := range asked {
		if n > 1 {
			t.Errorf("edge %s asked %d times, want once a run", e, n)
		}
	}
	r.git("checkout", "-q", "base")
	clear(asked)
	fromGit := r.runWith(Options{Base: "base", Head: "weak", Confirm: true}, Deps{Confirm: fakeRefuteNameOnly})
	if len(asked) != 0 || fromGit.Confirmation != nil || !slices.ContainsFunc(fromGit.Notes, func(n string) bool { return strings.Contains(n, "not confirmed") }) {
		t.Errorf("--head: asked %v, confirmation %+v, notes %q; want nothing asked and a note", asked, fromGit.Confirmation, fromGit.Notes)
	}
}
