package hub

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/astedit"
	"cchub/workspace/wstest"
)

// goGit is the go-git module the benchmarks measure (bench/answerbytes).
const goGit = "github.com/go-git/go-git/v5@v5.19.3"

// The case issue 40 measured: on go-git, with no language server, the
// rewrite fmt.Errorf($MSG) → errors.New($MSG) stages its import changes
// (fixed in process, nothing left for a server) and, applied, builds.
// go-git and its dependencies come from the module proxy (go mod
// download) or the module cache; the build runs offline.
func TestRewriteGoGitBuildsWithNoServer(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and builds go-git")
	}
	out, err := exec.Command(goCommand(t), "mod", "download", "-json", goGit).Output()
	src := ""
	if _, rest, ok := strings.Cut(string(out), `"Dir": "`); ok && err == nil {
		src, _, _ = strings.Cut(rest, `"`)
	}
	wstest.RequirePeer(t, goGit+" in the module cache (go mod download "+goGit+")", src != "")
	dir := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dl := exec.Command(goCommand(t), "mod", "download")
	dl.Dir = dir
	dlOut, err := dl.CombinedOutput()
	wstest.RequirePeer(t, "go-git's dependencies (go mod download: "+strings.TrimSpace(string(dlOut))+")", err == nil)
	noServers(t)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	start := time.Now()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "fmt.Errorf($MSG)", Template: "errors.New($MSG)", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("staged %d places in %d files in %v; imports fixed in process in %d files", len(o.Locations), len(o.Files), time.Since(start), o.ImportsFixed)
	if len(o.Unorganized) != 0 || o.ImportsNote != "" || o.ImportsFixed == 0 {
		t.Fatalf("fixed %d, unorganized %v, note %q", o.ImportsFixed, o.Unorganized, o.ImportsNote)
	}
	if _, err := h.Apply(ctx, o.ID, NewRun()); err != nil {
		t.Fatal(err)
	}
	if out, err := goBuild(t, dir); err != nil {
		t.Errorf("the applied rewrite does not build: %v\n%s", err, out)
	}
}
