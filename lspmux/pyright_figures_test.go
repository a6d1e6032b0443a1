package lspmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

// The cost of pyright's workspace diagnostic mode against open files
// only, on copies of Python's own json and email packages: a cold start
// (first need to last publish, seen in hindsight after 3 s of silence),
// then one edit (AfterWrite's own time, and its last publish in
// hindsight). Figures, not assertions:
//
//	CCHUB_FIGURES=1 go test -run PyrightWorkspaceModeFigures -v ./lspmux/
func TestPyrightWorkspaceModeFigures(t *testing.T) {
	if os.Getenv("CCHUB_FIGURES") == "" {
		t.Skip("figures: set CCHUB_FIGURES=1")
	}
	out, err := exec.Command("python3", "-c", "import json, os; print(os.path.dirname(os.path.dirname(json.__file__)))").Output()
	if err != nil {
		t.Skip("no python3 to copy packages from")
	}
	lib := strings.TrimSpace(string(out))
	for _, c := range []struct{ pkg, file, old, new string }{
		{"json", "json/encoder.py", "def py_encode_basestring(s):", "def py_encode_basestring(s, extra):"},
		{"email", "email/_parseaddr.py", "def quote(str):", "def quote(str, extra):"},
	} {
		for _, mode := range []string{"openFilesOnly", "workspace"} {
			t.Run(c.pkg+"/"+mode, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "ws")
				if err := os.CopyFS(filepath.Join(dir, c.pkg), os.DirFS(filepath.Join(lib, c.pkg))); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"x\"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				root, err := workspace.Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				specs := Builtin()
				if mode == "openFilesOnly" {
					specs[1].Settings = nil
				}
				m := newPyrightMux(t, root, specs)
				ctx := context.Background()
				src := read(t, dir, c.file)
				t0 := time.Now()
				rep, err := m.AfterWrite(ctx, []File{{Path: c.file, Data: []byte(src)}})
				if err != nil {
					t.Fatal(err)
				}
				first := time.Since(t0)
				s := m.servers["pyright@"]
				last, files := quiet(s, 3*time.Second)
				t.Logf("cold: first AfterWrite %v (notes %q), last publish %v after the need, %d files published", first.Round(time.Millisecond), rep.Notes, last.Sub(t0).Round(time.Millisecond), files)
				changed := strings.Replace(src, c.old, c.new, 1)
				t1 := time.Now()
				rep, err = m.AfterWrite(ctx, []File{write(t, dir, c.file, changed)})
				if err != nil {
					t.Fatal(err)
				}
				took := time.Since(t1)
				n := 0
				for _, ds := range rep.Files {
					n += len(ds)
				}
				last, files = quiet(s, 3*time.Second)
				t.Logf("edit: AfterWrite %v, %d files and %d diagnostics in its answer; last publish %v after the write; %d files published in all", took.Round(time.Millisecond), len(rep.Files), n, last.Sub(t1).Round(time.Millisecond), files)
			})
		}
	}
}

// quiet waits until s has no work-done progress going (pyright's
// analysis of the workspace is one) and has said nothing for still, and
// returns its last event and how many files it has published for.
func quiet(s *server, still time.Duration) (time.Time, int) {
	for {
		s.mu.Lock()
		last, n, busy := s.last, len(s.diags), len(s.active) > 0
		s.mu.Unlock()
		if !busy && time.Since(last) >= still {
			return last, n
		}
		time.Sleep(100 * time.Millisecond)
	}
}
