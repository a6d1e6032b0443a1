package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cchub/astedit"
	"cchub/locate"
	"cchub/textedit"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// gitWorkspace is a real repository (git init) with links into .git and
// .cchub of the kinds a clone delivers, and the file a core.fsmonitor
// planted by a write would create when git status runs it.
func gitWorkspace(t *testing.T) (ws, marker string) {
	t.Helper()
	wstest.RequireProgram(t, "git")
	ws = t.TempDir()
	runGit(t, ws, "init", "-q", ".")
	for target, link := range map[string]string{
		".git":        "g",
		".git/hooks":  "hooks",
		".cchub":      "st",
		"../.git":     "sub/x",
		"sub/x":       "y", // a link to a link
		".git/config": "cfg",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range map[string]string{
		".cchub/planted.txt": "planted\n",
		"d/f.go":             "package d\n\nfunc F() int { return 1 }\n",
		// What d/f.go would be found as once d is a link to .git: the
		// same bytes, so only the location tells them apart.
		".git/f.go": "package d\n\nfunc F() int { return 1 }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, filepath.Join(t.TempDir(), "fsmonitor-ran")
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Every tool that writes (edit, write, apply_patch, and a staged rewrite
// committed by Apply) is refused when its path resolves into .git or
// .cchub through a symlinked directory or a symlink as the file's name;
// .git is byte-identical after, .cchub gained nothing the tools named,
// and the core.fsmonitor they tried to plant never runs.
func TestWriteToolsNeverReachGitThroughSymlinks(t *testing.T) {
	ws, marker := gitWorkspace(t)
	h := newTestHub(t, ws)
	ctx := context.Background()
	before := treeOf(t, filepath.Join(ws, ".git"))
	cfg := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch %s; true\"\n", marker)
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, workspace.ErrProtected) {
			t.Errorf("%s: err = %v, want a refusal (ErrProtected)", what, err)
		}
	}

	r := NewRun()
	for _, p := range []string{"g/config", "sub/x/config", "y/config", "cfg"} {
		if _, err := h.Read(ctx, locate.ReadOptions{Path: p}, r); err != nil {
			t.Fatalf("read %s (reading is allowed): %v", p, err)
		}
		_, err := h.Edit(ctx, p, textedit.Change{Old: "[core]", New: "[core]\n\tfsmonitor = \"touch " + marker + "\""}, r)
		refused("edit "+p, err)
		_, err = h.Write(ctx, p, cfg, textedit.WriteOptions{}, r)
		refused("write "+p, err)
	}
	for _, p := range []string{"hooks/pre-commit", "g/hooks/post-checkout", "sub/x/hooks/new/pre-push", "st/evil.txt"} {
		_, err := h.Write(ctx, p, hook, textedit.WriteOptions{}, r)
		refused("write "+p, err)
	}
	_, err := h.Write(ctx, "g/config", cfg, textedit.WriteOptions{}, r)
	if err == nil || !strings.Contains(err.Error(), "g/config resolves to .git/config, inside .git") || !strings.Contains(err.Error(), "use git itself") {
		t.Errorf("write g/config: the refusal does not say where the path leads and what to do: %v", err)
	}
	for _, patch := range []string{
		"*** Begin Patch\n*** Update File: g/config\n@@\n-[core]\n+[core]\n+\tfsmonitor = \"touch " + marker + "\"\n*** End Patch",
		"*** Begin Patch\n*** Add File: hooks/pre-commit\n+#!/bin/sh\n+touch " + marker + "\n*** End Patch",
		"*** Begin Patch\n*** Delete File: g/description\n*** End Patch",
		// Two files: the staged, journaled commit of a multi-file patch.
		"*** Begin Patch\n*** Add File: innocent.txt\n+hello\n*** Add File: y/hooks/pre-push\n+#!/bin/sh\n+touch " + marker + "\n*** End Patch",
		"*** Begin Patch\n*** Add File: innocent.txt\n+hello\n*** Add File: st/evil.txt\n+x\n*** End Patch",
	} {
		_, err := h.ApplyPatch(ctx, patch, r)
		refused("apply_patch\n"+patch, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "innocent.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused patch left innocent.txt: %v", err)
	}

	// A rewrite staged on d/f.go, then d swapped for a link to .git,
	// where a file of the same bytes waits: the commit must not follow.
	s, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "return 1", Template: "return 2", Lang: "go", Paths: []string{"d"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "d.real")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	_, err = h.Apply(ctx, s.ID, NewRun())
	refused("apply of staged "+s.ID, err)

	if after := treeOf(t, filepath.Join(ws, ".git")); !slices.Equal(before, after) {
		t.Errorf(".git changed:\nbefore %q\nafter  %q", before, after)
	}
	for _, p := range []string{".cchub/evil.txt", "d.real/f.go.orig"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists: %v", p, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".cchub", "planted.txt")); string(data) != "planted\n" {
		t.Errorf(".cchub/planted.txt holds %q", data)
	}
	runGit(t, ws, "status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the core.fsmonitor a tool tried to plant ran: a write reached .git/config")
	}
}
