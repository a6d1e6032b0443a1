package workspace

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The words only the file outside the root holds: if any operation returns
// them, it opened something outside.
const outsideSecret = "OUTSIDE-SECRET-7f3a"

// FuzzConfinement gives the file operations random paths, in a root with
// two symlinks of random target (l at the top, sub/m one level down), and
// checks that nothing outside the root is ever read, listed, written or
// removed, and that no write operation creates, changes or removes
// anything under the root's .git or .cchub, which fixed links (g, st,
// hk, sub/x) lead into as well. "$OUT" and "$ROOT" in the fuzzed strings
// stand for the absolute paths of the outside directory and the root, so
// absolute paths are tried as well as relative ones.
func FuzzConfinement(f *testing.F) {
	seeds := []struct {
		p, link string
		op      uint8
	}{
		{"../out/secret.txt", "sub", 0},
		{"$OUT/secret.txt", "sub", 1},
		{"l/secret.txt", "../out", 0},
		{"l/secret.txt", "$OUT", 2},
		{"l", "$OUT/secret.txt", 4},
		{"l/new.txt", "$OUT", 4},
		{"sub/../l/secret.txt", "../../out", 3},
		{"$ROOT/l/secret.txt", "$OUT", 0},
		{"l/x/../secret.txt", "$OUT", 5},
		{"up/secret.txt", "sub", 6},
		{"abs", "sub", 0},
		{"l", "$ROOT/sub/inner.txt", 4},
		{".", "/", 6},
		{"l/etc/passwd", "/", 0},
		{"sub/inner.txt", "sub", 4},
		// Into .git and .cchub, through links fixed and fuzzed.
		{"l/config", ".git", 4},
		{"l/hooks/pre-commit", ".git", 4},
		{"l", ".git/config", 4},
		{"l", "g/config", 9},
		{"l/config", "$ROOT/.git", 7},
		{"l/new/dir/f", ".git/hooks", 10},
		{"l/state.db", ".cchub", 8},
		{"l/state.db", "st", 5},
		{"l/emptydir", ".git", 11},
		{"sub/m/config", "../.git", 4},
		{"sub/m/config", "../g", 7},
		{"sub/m/config", "../.GIT", 4},
		{"sub/m/hooks/x", "../l", 4},
		{"sub/x/description", "../l", 5},
		{"hk/pre-push", "sub", 10},
		{"st/state.db", "sub", 7},
		{"g/../g/config", "sub", 4},
		{"l/../.git/config", "sub", 4},
	}
	for _, s := range seeds {
		f.Add(s.p, s.link, s.link, s.op)
	}
	f.Fuzz(func(t *testing.T, p, link, link2 string, op uint8) {
		if strings.IndexByte(p, 0) >= 0 || strings.IndexByte(link, 0) >= 0 || strings.IndexByte(link2, 0) >= 0 || link == "" {
			return
		}
		base := t.TempDir()
		root, out := filepath.Join(base, "root"), filepath.Join(base, "out")
		writeFile(t, filepath.Join(out, "secret.txt"), outsideSecret+"\n", 0o644)
		writeFile(t, filepath.Join(root, "sub", "inner.txt"), "inside\n", 0o644)
		for _, d := range []string{".git", StateDir} {
			writeFile(t, filepath.Join(root, d, "planted"), "left here\n", 0o644)
			writeFile(t, filepath.Join(root, d, "description"), "keep\n", 0o644)
			os.MkdirAll(filepath.Join(root, d, "emptydir"), 0o755)
		}
		writeFile(t, filepath.Join(root, ".git", "config"), "[core]\n", 0o644)
		writeFile(t, filepath.Join(root, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n", 0o755)
		writeFile(t, filepath.Join(root, StateDir, "state.db"), "state\n", 0o644)
		os.Symlink("../out", filepath.Join(root, "up"))
		os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(root, "abs"))
		os.Symlink(".git", filepath.Join(root, "g"))
		os.Symlink(StateDir, filepath.Join(root, "st"))
		os.Symlink(".git/hooks", filepath.Join(root, "hk"))
		os.Symlink("../g", filepath.Join(root, "sub", "x"))
		expand := strings.NewReplacer("$OUT", out, "$ROOT", root)
		if err := os.Symlink(expand.Replace(link), filepath.Join(root, "l")); err != nil {
			return
		}
		if link2 != "" {
			if err := os.Symlink(expand.Replace(link2), filepath.Join(root, "sub", "m")); err != nil {
				return
			}
		}
		r, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		before := snapshot(t, out)
		protected := protectedSnapshot(t, root)

		path := expand.Replace(p)
		names := []string{filepath.ToSlash(path)}
		if _, rel, err := r.Resolve(path); err == nil {
			names = append(names, rel) // as the tools call it
		}
		for _, name := range names {
			checkOp(t, r, name, op)
		}
		if after := snapshot(t, out); !slices.Equal(before, after) {
			t.Fatalf("op %d on %q (l -> %q, sub/m -> %q) changed the outside directory:\nbefore %q\nafter  %q", op%ops, p, link, link2, before, after)
		}
		if after := protectedSnapshot(t, root); !slices.Equal(protected, after) {
			t.Fatalf("op %d on %q (l -> %q, sub/m -> %q) changed .git or %s:\nbefore %q\nafter  %q", op%ops, p, link, link2, StateDir, protected, after)
		}
	})
}

// ops is the number of operations checkOp knows.
const ops = 12

// checkOp runs one operation on name and fails if it returned the outside
// secret.
func checkOp(t *testing.T, r *Root, name string, op uint8) {
	leak := func(data []byte) {
		if bytes.Contains(data, []byte(outsideSecret)) {
			t.Fatalf("op %d on %q read the file outside the root", op%ops, name)
		}
	}
	switch op % ops {
	case 0:
		data, _ := r.ReadText(name)
		leak(data)
	case 1:
		data, _ := r.ReadInto(name, nil, 1<<20)
		leak(data)
	case 2:
		if f, _, err := r.OpenRegular(name); err == nil {
			var b bytes.Buffer
			b.ReadFrom(f)
			f.Close()
			leak(b.Bytes())
		}
	case 3:
		if des, err := r.ReadDir(name); err == nil {
			for _, d := range des {
				if d.Name() == "secret.txt" {
					t.Fatalf("ReadDir %q listed the outside directory", name)
				}
			}
		}
	case 4:
		r.WriteFile(name, []byte("fuzz\n"), 0o644)
	case 5:
		r.RemoveFile(name)
	case 6:
		r.Walk(context.Background(), name, func(rel string, d fs.DirEntry) error {
			if d.IsDir() {
				return nil
			}
			data, _ := r.ReadText(rel)
			leak(data)
			return nil
		})
	case 7: // a two-phase write, as a staged commit makes it
		temp := TempBeside(name, "fz")
		if _, err := r.WriteTemp(temp, []byte("fuzz\n"), 0o644); err == nil {
			if r.RenameInto(temp, name) != nil {
				r.RemoveSynced(temp)
			}
		}
	case 8:
		r.RemoveSynced(name)
	case 9: // a staged commit: its target, then the temp beside it
		if target, err := r.WriteTarget(name); err == nil {
			temp := TempBeside(target, "fz")
			if made, err := r.WriteTemp(temp, []byte("fuzz\n"), 0o644); err == nil {
				if r.RenameInto(temp, target) != nil {
					r.RemoveSynced(temp)
					r.RemoveDirs(made)
				}
			}
		}
	case 10: // a write undone, as apply_patch rolls back
		if made, err := r.WriteFile(name, []byte("fuzz\n"), 0o644); err == nil {
			r.RemoveFile(name)
			r.RemoveDirs(made)
		}
	case 11:
		r.RemoveDirs([]string{name})
	}
}

// snapshot lists every file under dir with its content.
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out = append(out, p+": "+err.Error())
			return nil
		}
		data, _ := os.ReadFile(p)
		out = append(out, p+"="+string(data))
		return nil
	})
	return out
}
