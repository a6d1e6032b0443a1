package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// confinementTree is a root with links that stay inside and links that lead
// out, next to a directory outside the root that holds a secret.
func confinementTree(t *testing.T) (root *workspace.Root, outside string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(dir, "src", "pkg"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "src", "main.go"), "package main\n")
	write(t, filepath.Join(outside, "secret"), "s3cret\n")
	// A sibling whose name starts with the root's: not inside it.
	write(t, filepath.Join(base, "root2", "file"), "x\n")
	links := map[string]string{
		"out-file":        filepath.Join(outside, "secret"),    // file outside, absolute
		"out-dir":         outside,                             // directory outside
		"out-rel":         "../outside/secret",                 // relative, leading out
		"dangling-out":    filepath.Join(outside, "new-file"),  // dangling, target outside
		"dangling-outdir": filepath.Join(outside, "no", "dir"), // dangling, a directory path outside
		"chain":           "out-file",                          // inside → inside → outside
		"in-file":         "src/main.go",                       // inside, relative
		"in-dir":          filepath.Join(dir, "src"),           // inside, absolute
		"dangling-in":     "src/not-yet.go",                    // dangling, target inside
		"src/up":          "..",                                // the root itself
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r, outside
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveRefusesPathsOutside(t *testing.T) {
	root, outside := confinementTree(t)
	base := filepath.Dir(root.Dir())
	for _, p := range []string{
		"..",
		"../x",
		"../root2/file",
		"a/../../x",
		"src/../../outside/secret",
		filepath.Join(outside, "secret"),
		"/etc/passwd",
		"/",
		filepath.Join(base, "root2", "file"), // shares the root's name as a prefix
		filepath.Join(root.Dir(), "..", "outside"),
		"out-file",
		"out-dir",
		"out-dir/secret",
		"out-dir/not-there/new.go", // writing a new file under a link that leads out
		"out-rel",
		"dangling-out",             // writing through it would create a file outside
		"dangling-outdir/file.txt", // and here a file under a directory outside
		"chain",
		filepath.Join(root.Dir(), "out-file"), // absolute, but through a link that leads out
	} {
		abs, rel, err := root.Resolve(p)
		if !errors.Is(err, workspace.ErrOutsideRoot) {
			t.Errorf("Resolve(%q) = %q, %q, %v; want ErrOutsideRoot", p, abs, rel, err)
			continue
		}
		if !strings.Contains(err.Error(), root.Dir()) {
			t.Errorf("Resolve(%q): the error %q does not say what the root is", p, err)
		}
	}
}

func TestResolveAcceptsPathsInside(t *testing.T) {
	root, _ := confinementTree(t)
	for _, c := range []struct{ in, rel string }{
		{"", "."},
		{".", "."},
		{"./", "."},
		{root.Dir(), "."},
		{root.Dir() + "/", "."},
		{"src", "src"},
		{"src/main.go", "src/main.go"},
		{"./src//main.go", "src/main.go"},
		{"src/../src/main.go", "src/main.go"},
		{"src/pkg/../main.go", "src/main.go"},
		{filepath.Join(root.Dir(), "src", "main.go"), "src/main.go"},
		{"src/new/dir/file.go", "src/new/dir/file.go"}, // need not exist
		{"in-file", "in-file"},                         // links inside keep their own path
		{"in-dir/main.go", "in-dir/main.go"},
		{"dangling-in", "dangling-in"},
		{"src/up/src/main.go", "src/up/src/main.go"},
		{".cchub/spill/x.txt", ".cchub/spill/x.txt"},
		{"...", "..."}, // a name, not a parent
		{"..foo", "..foo"},
		{"../root/src", "src"}, // out and back in: it names a path inside
	} {
		abs, rel, err := root.Resolve(c.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", c.in, err)
			continue
		}
		if rel != c.rel {
			t.Errorf("Resolve(%q) rel = %q, want %q", c.in, rel, c.rel)
		}
		if want := filepath.Join(root.Dir(), filepath.FromSlash(c.rel)); abs != want {
			t.Errorf("Resolve(%q) abs = %q, want %q", c.in, abs, want)
		}
	}
}

func TestResolveRefusesNUL(t *testing.T) {
	root, _ := confinementTree(t)
	for _, p := range []string{"src/main.go\x00.txt", "\x00", "src\x00/../../etc"} {
		_, _, err := root.Resolve(p)
		if err == nil || !strings.Contains(err.Error(), "NUL") || strings.Contains(err.Error(), "\x00") {
			t.Errorf("Resolve(%q) = %v; want an error naming the NUL byte without containing one", p, err)
		}
	}
}

// A root opened through a symlinked path is its real directory, and paths
// spelled through the symlinked prefix (as /tmp is /private/tmp on macOS)
// still count as inside.
func TestResolveThroughSymlinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	write(t, filepath.Join(real, "a.go"), "package a\n")
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(real, alias); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(alias)
	if err != nil {
		t.Fatal(err)
	}
	if root.Dir() != real {
		t.Errorf("Dir() = %q, want the real path %q", root.Dir(), real)
	}
	for _, p := range []string{filepath.Join(alias, "a.go"), filepath.Join(alias, "new.go")} {
		if _, rel, err := root.Resolve(p); err != nil || rel != filepath.Base(p) {
			t.Errorf("Resolve(%q) = %q, %v", p, rel, err)
		}
	}
}

func TestOpenExplains(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), "x")
	if _, err := workspace.Open(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing root: %v", err)
	}
	if _, err := workspace.Open(filepath.Join(dir, "f")); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("file as root: %v", err)
	}
	r, err := workspace.Open(dir + "/.")
	if err != nil || r.Dir() != dir {
		t.Errorf("Open(%q) = %v, %v", dir+"/.", r, err)
	}
}

func TestRel(t *testing.T) {
	root, _ := confinementTree(t)
	if got := root.Rel(filepath.Join(root.Dir(), "src", "main.go")); got != "src/main.go" {
		t.Errorf("Rel = %q", got)
	}
	if got := root.Rel(root.Dir()); got != "." {
		t.Errorf("Rel(root) = %q", got)
	}
}
