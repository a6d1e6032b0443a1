package workspace_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// walkTree builds a checkout with .gitignore files at several levels.
func walkTree(t *testing.T) *workspace.Root {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".gitignore": "# comment\n\n*.log\n!keep.log\nbuild/\n/root-only.txt\nlogs/\n!logs/important.txt\ntmp-*\r\n**/cache/**\n",
		"main.go":    "",
		"app.log":    "",
		"keep.log":   "",
		"tmp-1":      "",

		"root-only.txt":             "",
		"build/out.bin":             "",
		"logs/important.txt":        "", // git cannot re-include a file under an excluded directory
		"src/root-only.txt":         "", // an anchored pattern binds to its own .gitignore's level
		"src/build":                 "", // a file: build/ matches directories only
		"src/.gitignore":            "gen.go\n!debug.log\n/local.txt\n",
		"src/a.go":                  "",
		"src/gen.go":                "",
		"src/debug.log":             "", // re-included by the nested file
		"src/local.txt":             "",
		"src/deep/gen.go":           "", // a nested pattern without a slash applies below too
		"src/deep/local.txt":        "", // but an anchored one does not
		"src/deep/b.go":             "",
		"src/deep/build/x.go":       "", // build/ at any depth
		"src/deep/cache/data/x.txt": "",
		"src/deep/other.log":        "",
		"vendor/.gitignore":         "*\n!.gitignore\n",
		"vendor/lib.go":             "",
		"docs/.hidden":              "",
		".git/HEAD":                 "",
		".git/info/exclude":         "secret.env\n",
		".cchub/.gitignore":         "*\n",
		".cchub/spill/x.txt":        "",
		"secret.env":                "",
		"sub/.git/config":           "", // a nested repository's .git is skipped too
		"sub/mod.go":                "",
		"sub/.cchub/state":          "",
	}
	for p, content := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(p)), content)
	}
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func walked(t *testing.T, root *workspace.Root, start string) []string {
	t.Helper()
	var got []string
	err := root.Walk(context.Background(), start, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			rel += "/"
		}
		got = append(got, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%q): %v", start, err)
	}
	return got
}

func TestWalkHonoursGitignore(t *testing.T) {
	root := walkTree(t)
	want := []string{
		"./",
		".gitignore",
		"docs/",
		"docs/.hidden",
		"keep.log",
		"main.go",
		"src/",
		"src/.gitignore",
		"src/a.go",
		"src/build",
		"src/debug.log",
		"src/deep/",
		"src/deep/b.go",
		"src/deep/local.txt",
		"src/root-only.txt",
		"sub/",
		"sub/mod.go",
		"vendor/",
		"vendor/.gitignore",
	}
	if got := walked(t, root, "."); !slices.Equal(got, want) {
		t.Errorf("walk:\n got %q\nwant %q", got, want)
	}
}

func TestWalkFromInside(t *testing.T) {
	root := walkTree(t)
	for _, c := range []struct {
		start string
		want  []string
	}{
		// The ancestors' .gitignore files apply to a walk that starts below them.
		{"src/deep", []string{"src/deep/", "src/deep/b.go", "src/deep/local.txt"}},
		{"src/deep/", []string{"src/deep/", "src/deep/b.go", "src/deep/local.txt"}},
		{"./src/../src/deep", []string{"src/deep/", "src/deep/b.go", "src/deep/local.txt"}},
		{"src/a.go", []string{"src/a.go"}},
		{filepath.Join(root.Dir(), "src", "a.go"), []string{"src/a.go"}},
		// An ignored start is not walked at all.
		{"src/gen.go", nil},
		{"build", nil},
		{"src/deep/build", nil},
		{"app.log", nil},
		{"logs", nil},
		// .cchub's own .gitignore ("*") keeps its contents out of walks.
		{".cchub/spill", nil},
	} {
		if got := walked(t, root, c.start); !slices.Equal(got, c.want) {
			t.Errorf("Walk(%q) = %q, want %q", c.start, got, c.want)
		}
	}
}

func TestWalkSymlinks(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	write(t, filepath.Join(dir, "real", "a.go"), "")
	write(t, filepath.Join(base, "outside", "secret.go"), "")
	for name, target := range map[string]string{
		"link-in.go":   "real/a.go",                                 // file inside: reported
		"link-out.go":  filepath.Join(base, "outside", "secret.go"), // file outside: not reported
		"link-dir":     "real",                                      // directory: not followed
		"link-outdir":  filepath.Join(base, "outside"),              // directory outside: not followed
		"dangling.go":  "nowhere.go",                                // dangling: not reported
		"real/loop.go": "../link-in.go",                             // a chain that stays inside
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"./", "link-in.go", "real/", "real/a.go", "real/loop.go"}
	if got := walked(t, root, "."); !slices.Equal(got, want) {
		t.Errorf("walk = %q, want %q", got, want)
	}
	for _, start := range []string{"link-outdir", "link-out.go", "../outside"} {
		if err := root.Walk(context.Background(), start, func(string, fs.DirEntry) error { return nil }); !errors.Is(err, workspace.ErrOutsideRoot) {
			t.Errorf("Walk(%q): %v, want ErrOutsideRoot", start, err)
		}
	}
}

func TestWalkControl(t *testing.T) {
	root := walkTree(t)
	ctx := context.Background()

	// SkipDir on a directory skips what is under it.
	var got []string
	err := root.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() && rel == "src" {
			return workspace.SkipDir
		}
		got = append(got, rel)
		return nil
	})
	if err != nil || slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, "src/") }) {
		t.Errorf("SkipDir: %v, %q", err, got)
	}

	// SkipAll stops the walk without an error.
	n := 0
	err = root.Walk(ctx, ".", func(string, fs.DirEntry) error {
		if n++; n == 3 {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("SkipAll: %v after %d calls", err, n)
	}

	// Other errors come back as they are.
	boom := errors.New("boom")
	if err := root.Walk(ctx, ".", func(rel string, _ fs.DirEntry) error {
		if rel == "main.go" {
			return boom
		}
		return nil
	}); err != boom {
		t.Errorf("error from fn: %v", err)
	}

	// A cancelled context ends the walk.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := root.Walk(cctx, ".", func(string, fs.DirEntry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}

	// A missing start is an error, not an empty walk.
	if err := root.Walk(ctx, "nope", func(string, fs.DirEntry) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing start: %v", err)
	}
}

// Where there is no .gitignore to honour, Walk visits the files a plain
// filepath.WalkDir does, in the same order.
func TestWalkMatchesFilepathWalkDir(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/z.go", "b/a.go", "a.go", "a/b.go", "a-b/c.go", "a.b/d.go", "B/x.go", "_/y.go", ".dot/e.go"} {
		write(t, filepath.Join(dir, p), "")
	}
	dirs := []string{dir}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		dirs = append(dirs, filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http"))
	}
	for _, dir := range dirs {
		root, err := workspace.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		filepath.WalkDir(root.Dir(), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root.Dir(), p)
				want = append(want, filepath.ToSlash(rel))
			}
			return nil
		})
		var got []string
		root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
			if !d.IsDir() {
				got = append(got, rel)
			}
			return nil
		})
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: walk found %d files, WalkDir %d; or the order differs", dir, len(got), len(want))
		}
	}
}

// A directory the walk cannot list is visited, not entered, and reported
// by WalkReporting; the rest of the walk goes on. Walk says nothing.
func TestWalkReportsUnreadableDirectories(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.go"), "")
	write(t, filepath.Join(dir, "z", "b.go"), "")
	bad, reason := wstest.UnreadableDir(t, dir)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var unreadable workspace.UnreadableDirs
	err = root.WalkReporting(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() {
			got = append(got, rel)
		}
		return nil
	}, unreadable.Add)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.go", "z/b.go"}; !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if want := (workspace.UnreadableDirs{{Path: bad, Reason: reason}}); !slices.Equal(unreadable, want) {
		t.Errorf("unreadable = %q, want %q", unreadable, want)
	}
	t.Logf("unreadable: %s (%s)", bad[:min(len(bad), 40)], reason)
	if files := walked(t, root, "."); !slices.Contains(files, "a.go") || !slices.Contains(files, "z/b.go") {
		t.Errorf("Walk: %q", files)
	}
}

// A directory that goes away between being listed in its parent and being
// read itself is reported too.
func TestWalkReportsDirectoryGoneMidWalk(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "gone", "x.go"), "")
	write(t, filepath.Join(dir, "kept", "y.go"), "")
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	var unreadable workspace.UnreadableDirs
	err = root.WalkReporting(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if rel == "gone" {
			return os.RemoveAll(filepath.Join(dir, "gone"))
		}
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	}, unreadable.Add)
	if err != nil {
		t.Fatal(err)
	}
	want := workspace.UnreadableDirs{{Path: "gone", Reason: "no such file or directory"}}
	if !slices.Equal(unreadable, want) || !slices.Equal(files, []string{"kept/y.go"}) {
		t.Errorf("unreadable %q, files %q", unreadable, files)
	}
	// A start that cannot be read is reported as itself.
	unreadable = nil
	if err := os.Mkdir(filepath.Join(dir, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = root.WalkReporting(context.Background(), "gone", func(rel string, d fs.DirEntry) error {
		return os.Remove(filepath.Join(dir, "gone"))
	}, unreadable.Add)
	if err != nil || len(unreadable) != 1 || unreadable[0].Path != "gone" {
		t.Errorf("unreadable start: %v, %q", err, unreadable)
	}
}

func TestUnreadableDirsNote(t *testing.T) {
	var u workspace.UnreadableDirs
	if got := u.Note("x"); got != "" {
		t.Errorf("no directories: %q", got)
	}
	u.Add("secret", &fs.PathError{Op: "open", Path: "/r/secret", Err: syscall.EACCES})
	if got, want := u.Note("their files were not searched"), "[could not read 1 directory: secret/ (permission denied); their files were not searched]\n"; got != want {
		t.Errorf("one:\n got %q\nwant %q", got, want)
	}
	u.Add(".", errors.New("input/output error"))
	for i := 0; i < 5; i++ {
		u.Add("d"+strconv.Itoa(i), syscall.ENAMETOOLONG)
	}
	want := "[could not read 7 directories: secret/ (permission denied), the workspace root (input/output error), d0/ (file name too long), d1/ (file name too long), d2/ (file name too long), and 2 more; their files are not listed]\n"
	if got := u.Note("their files are not listed"); got != want {
		t.Errorf("seven:\n got %q\nwant %q", got, want)
	}
}

// A state directory being made beside the root (renamed into place whole)
// is state, not a workspace file: the walk never shows it.
func TestWalkSkipsAStateDirectoryBeingMade(t *testing.T) {
	root := walkTree(t)
	if err := os.MkdirAll(filepath.Join(root.Dir(), workspace.StateDir+".new-0a1b2c"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root.Dir(), workspace.StateDir+".new-0a1b2c", "owner"), []byte("x"), 0o644)
	for _, p := range walked(t, root, ".") {
		if strings.HasPrefix(p, workspace.StateDir) {
			t.Errorf("walked %s", p)
		}
	}
}
