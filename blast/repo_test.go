package blast

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
)

// The workspace the tests change: a Go module and a Python package whose
// call graph is known.
//
//	store.Total     ← report.Summary (import) ← report.Print ← main
//	                ← store.TestTotal
//	report.Format   ← report.Summary
//	Store.Add       ← main, TestAdd, TestTotal (all name-only or exact)
//	stats.mean      ← stats.spread ← test_stats.test_spread (import)
var baseFiles_ = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"store/store.go": `package store

// Store counts items.
type Store struct {
	items map[string]int
}

func New() *Store { return &Store{items: map[string]int{}} }

func (s *Store) Add(name string, n int) {
	s.items[name] += n
}

func (s *Store) Count(name string) int {
	return s.items[name]
}

func Total(s *Store) int {
	t := 0
	for _, n := range s.items {
		t += n
	}
	return t
}
`,
	"store/store_test.go": `package store

import "testing"

func TestAdd(t *testing.T) {
	s := New()
	s.Add("a", 1)
	if s.Count("a") != 1 {
		t.Fatal("count")
	}
}

func TestTotal(t *testing.T) {
	s := New()
	s.Add("a", 2)
	if Total(s) != 2 {
		t.Fatal("total")
	}
}
`,
	"report/report.go": `package report

import (
	"fmt"

	"example.com/shop/store"
)

func Summary(s *store.Store) string {
	return Format(store.Total(s))
}

func Print(s *store.Store) {
	fmt.Println(Summary(s))
}
`,
	"report/format.go": `package report

import "strconv"

func Format(n int) string {
	return "total: " + strconv.Itoa(n)
}
`,
	"main.go": `package main

import (
	"example.com/shop/report"
	"example.com/shop/store"
)

func main() {
	s := store.New()
	s.Add("x", 2)
	report.Print(s)
}
`,
	"tools/__init__.py": "",
	"tools/stats.py": `def mean(xs):
    return sum(xs) / len(xs)


def spread(xs):
    m = mean(xs)
    return max(xs) - m
`,
	"tools/test_stats.py": `from tools.stats import spread


def test_spread():
    assert spread([1, 2, 3]) == 1
`,
}

// repo is a real git repository in a temporary directory, independent of
// the user's git configuration.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo { return newRepoOf(t, baseFiles_) }

// newRepoOf is newRepo with files as its base.
func newRepoOf(t *testing.T, files map[string]string) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CCHUB_REQUIRE_PEERS") == "1" {
			t.Fatal("git is not on PATH; install git")
		}
		t.Skip("git is not on PATH")
	}
	dir := t.TempDir()
	// Blast runs git itself, with this process's environment.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", dir)
	r := &repo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	r.write(files)
	r.commit("base")
	r.git("tag", "base")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=cchub test", "-c", "user.email=test@cchub.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *repo) write(files map[string]string) {
	r.t.Helper()
	for p, text := range files {
		full := filepath.Join(r.dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// edit replaces old with new in a file of the working tree.
func (r *repo) edit(p, old, new string) {
	r.t.Helper()
	full := filepath.Join(r.dir, p)
	b, err := os.ReadFile(full)
	if err != nil {
		r.t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		r.t.Fatalf("%s has no %q", p, old)
	}
	if err := os.WriteFile(full, bytes.ReplaceAll(b, []byte(old), []byte(new)), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// run measures with the checked-out working tree as head.
func (r *repo) run(o Options) *Report {
	r.t.Helper()
	return r.runWith(o, Deps{})
}

// runWith is run with collaborators.
func (r *repo) runWith(o Options, deps Deps) *Report {
	r.t.Helper()
	root, err := workspace.Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	rep, err := Run(context.Background(), root, cache, o, deps)
	if err != nil {
		r.t.Fatal(err)
	}
	return rep
}

// scenario commits a change on a branch of its own, measures it against
// base in the working tree, and again with --head from a checkout of
// base: the two must agree, but for the head they name.
func (r *repo) scenario(branch string, change func()) *Report {
	r.t.Helper()
	r.git("checkout", "-q", "-b", branch, "base")
	change()
	r.commit(branch)
	checkedOut := r.run(Options{Base: "base"})

	r.git("checkout", "-q", "base")
	fromGit := r.run(Options{Base: "base", Head: branch})
	if fromGit.Head.WorkingTree || fromGit.Head.Commit == "" {
		r.t.Errorf("--head %s: head is %+v", branch, fromGit.Head)
	}
	fromGit.Head = checkedOut.Head
	if a, b := jsonOf(r.t, checkedOut), jsonOf(r.t, fromGit); a != b {
		r.t.Errorf("--head %s without a checkout differs from the checked-out working tree:\nchecked out: %s\nfrom git:    %s", branch, a, b)
	}
	return checkedOut
}

func jsonOf(t *testing.T, r *Report) string {
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// changedSet is "status qualified-name path" of each changed definition.
func changedSet(r *Report) []string {
	var out []string
	for _, c := range r.Changed {
		out = append(out, c.Status+" "+c.QualifiedName+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// reachedAt is the reached definitions as "qualified-name@distance".
func reachedAt(r *Report) []string {
	var out []string
	for _, re := range r.Reached {
		out = append(out, re.QualifiedName+"@"+string(rune('0'+re.Distance)))
	}
	slices.Sort(out)
	return out
}

func testNames(r *Report) []string {
	var out []string
	for _, t := range r.Tests {
		out = append(out, t.QualifiedName)
	}
	slices.Sort(out)
	return out
}

func changedNamed(t *testing.T, r *Report, qual string) Changed {
	t.Helper()
	for _, c := range r.Changed {
		if c.QualifiedName == qual {
			return c
		}
	}
	t.Fatalf("%s is not among the changed: %v", qual, changedSet(r))
	return Changed{}
}
