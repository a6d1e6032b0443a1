package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

func openRoot(t *testing.T, dir string) *workspace.Root {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// exited waits up to 15 s for pid to be gone.
func exited(pid int) bool {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
	}
	return false
}

// oneProcess checks that the Muxes of two worktrees run one server
// process, and returns it.
func oneProcess(t *testing.T, a, b *Mux) []Process {
	t.Helper()
	pa, pb := a.Processes(), b.Processes()
	if len(pa) != 1 || len(pb) != 1 || pa[0].PID != pb[0].PID {
		t.Fatalf("two worktrees, want one server process: %+v and %+v", pa, pb)
	}
	return pa
}

// workspaceClean checks that m's workspace diagnostics hold nothing:
// none of another worktree's.
func workspaceClean(t *testing.T, m *Mux) {
	t.Helper()
	ws, err := m.Workspace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for rel, ds := range ws.Files {
		if len(ds) != 0 {
			t.Errorf("the second worktree's workspace diagnostics hold %s: %+v", rel, ds)
		}
	}
}

const (
	poolCallee = "package m\n\nfunc F(x int) int { return x }\n"
	poolCaller = "package m\n\nfunc G() int { return F(1) }\n"
	poolBroken = "package m\n\nfunc F(x, y int) int { return x + y }\n"
)

// Two worktrees of one repository, each its own Mux on one Pool, share
// one gopls, each as a workspace folder with its own view: what one
// breaks is told to it alone, the other's answers stay its own, the
// first to leave leaves the server to the other, and the last one stops
// it. A worktree nested in another gets a server of its own.
func TestWorktreesShareOneGopls(t *testing.T) {
	repo, wts := wstest.GitWorktrees(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "a.go": poolCallee, "b.go": poolCaller}, "wt", "repo/.worktrees/nested")
	pool := NewPool()
	ctx := context.Background()
	mA := newGoMux(t, openRoot(t, repo), Options{Pool: pool})
	mB := newGoMux(t, openRoot(t, wts[0]), Options{Pool: pool})

	fa := write(t, repo, "a.go", poolBroken)
	fa.Old = []byte(poolCallee) // gopls starts for this change: it is told the file as it was first
	repA, err := mA.AfterWrite(ctx, []File{fa})
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(repA.New["b.go"], "error", "not enough arguments") {
		t.Fatalf("the worktree that broke its caller is not told: %+v", repA)
	}
	// The other worktree's change: a comment. Nothing of the first's.
	fb := write(t, wts[0], "a.go", "// F is F.\n"+poolCallee)
	fb.Old = []byte(poolCallee)
	repB, err := mB.AfterWrite(ctx, []File{fb})
	if err != nil {
		t.Fatal(err)
	}
	pa := oneProcess(t, mA, mB)
	if len(repB.New) != 0 || len(repB.Gone) != 0 || len(repB.Files["b.go"]) != 0 {
		t.Fatalf("the second worktree is told the first's news: %+v", repB)
	}
	workspaceClean(t, mB)
	wsA, err := mA.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(wsA.Files["b.go"], "error", "not enough arguments") {
		t.Errorf("the first worktree's workspace diagnostics lost its broken caller: %+v", wsA.Files)
	}

	// A worktree inside the first one's folder is served apart.
	mN := newGoMux(t, openRoot(t, wts[1]), Options{Pool: pool})
	if _, err := mN.AfterWrite(ctx, []File{write(t, wts[1], "a.go", poolBroken)}); err != nil {
		t.Fatal(err)
	}
	if pn := mN.Processes(); len(pn) != 1 || pn[0].PID == pa[0].PID {
		t.Errorf("a nested worktree shares the server of the folder holding it: %+v", pn)
	}
	mN.Close()

	// The shared server is killed: each worktree's next change starts
	// it again, once for both, and each is told of the crash.
	syscall.Kill(pa[0].PID, syscall.SIGKILL)
	if !exited(pa[0].PID) {
		t.Fatal("the killed gopls did not exit")
	}
	for _, w := range []struct {
		m        *Mux
		dir, now string
		fixes    bool
	}{{mA, repo, poolCallee, true}, {mB, wts[0], poolBroken, false}} {
		f := File{Path: "a.go", Old: []byte(read(t, w.dir, "a.go"))}
		f.Data = write(t, w.dir, "a.go", w.now).Data
		rep, err := w.m.AfterWrite(ctx, []File{f})
		if err != nil {
			t.Fatal(err)
		}
		crashSaid := false
		for _, n := range rep.Notes {
			crashSaid = crashSaid || strings.Contains(n, "exited unexpectedly")
		}
		told := rep.New["b.go"]
		if w.fixes {
			told = rep.GoneKeys["b.go"]
		}
		if !crashSaid || !findDiag(told, "error", "not enough arguments") {
			t.Fatalf("after the kill, %s: %+v", w.dir, rep)
		}
	}
	pa = oneProcess(t, mA, mB)

	// The first leaves: the server goes on for the second.
	mA.Close()
	if syscall.Kill(pa[0].PID, 0) != nil {
		t.Fatal("the shared gopls stopped while another worktree uses it")
	}
	repB, err = mB.AfterWrite(ctx, []File{write(t, wts[0], "a.go", poolCallee)})
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(repB.GoneKeys["b.go"], "error", "not enough arguments") {
		t.Fatalf("after the first worktree left, the second's change is not told: %+v", repB)
	}
	if pb := mB.Processes(); len(pb) != 1 || pb[0].PID != pa[0].PID {
		t.Errorf("after the first worktree left: %+v, want gopls %d still", pb, pa[0].PID)
	}
	mB.Close()
	if !exited(pa[0].PID) {
		t.Errorf("gopls %d still runs after the last worktree let it go", pa[0].PID)
	}
}

// pyright's worktrees share one process the same way.
func TestWorktreesShareOnePyright(t *testing.T) {
	files := map[string]string{
		"pyproject.toml":   "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n",
		"shop/__init__.py": "",
		"shop/utils.py":    "def total(price: int, qty: int) -> int:\n    return price * qty\n",
		"shop/caller.py":   "from shop.utils import total\n\n\ndef bill() -> int:\n    return total(3, 4)\n",
	}
	repo, wts := wstest.GitWorktrees(t, files, "wt")
	pool := NewPool()
	mA := newPyrightMuxWith(t, openRoot(t, repo), Options{Pool: pool})
	mB := newPyrightMuxWith(t, openRoot(t, wts[0]), Options{Pool: pool})
	ctx := context.Background()
	changed := "def total(price: int, qty: int, tax: int) -> int:\n    return price * qty + tax\n"
	f := write(t, repo, "shop/utils.py", changed)
	f.Old = []byte(files["shop/utils.py"])
	repA, err := mA.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	if !findDiag(repA.New["shop/caller.py"], "error", `Argument missing for parameter "tax"`) {
		t.Fatalf("the worktree that broke its caller is not told: %+v", repA)
	}
	g := write(t, wts[0], "shop/utils.py", "# utils\n"+files["shop/utils.py"])
	g.Old = []byte(files["shop/utils.py"])
	repB, err := mB.AfterWrite(ctx, []File{g})
	if err != nil {
		t.Fatal(err)
	}
	oneProcess(t, mA, mB)
	if len(repB.New) != 0 || len(repB.Files["shop/caller.py"]) != 0 {
		t.Fatalf("the second worktree is told the first's news: %+v", repB)
	}
	workspaceClean(t, mB)
}

// gitFamily reads a worktree's .git file to the repository's common
// directory, and finds it from a directory below the top.
func TestGitFamily(t *testing.T) {
	repo, wts := wstest.GitWorktrees(t, map[string]string{"sub/x.txt": "x\n"}, "wt")
	fa, ta := gitFamily(filepath.Join(repo, "sub"))
	fb, tb := gitFamily(filepath.Join(wts[0], "sub"))
	if fa == "" || fa != fb || ta != repo || tb != wts[0] {
		t.Errorf("gitFamily: %q %q and %q %q; want one family, tops %s and %s", fa, ta, fb, tb, repo, wts[0])
	}
	// A directory in no repository has none (when the temporary
	// directory is itself inside a repository, that one's).
	alone := t.TempDir()
	if f, _ := gitFamily(alone); f == fa || f != "" && !insideRepo(alone) {
		t.Errorf("a directory outside the test's repository has family %q", f)
	}
}

// insideRepo says whether a directory above dir holds a .git.
func insideRepo(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
