package lspmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// nodeServer is the path of a language server make test installs with npm
// into .tools/lsp.
func nodeServer(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", ".tools", "lsp", "node_modules", ".bin", name))
	if err == nil {
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	p, err = exec.LookPath(name)
	wstest.RequirePeer(t, name+" (make test installs it into .tools/lsp)", err == nil)
	return p
}

// copyWS is a copy of testdata/workspaces/name and its root.
func copyWS(t *testing.T, name string) (*workspace.Root, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces", name))); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dst
}

// Each server is asked the same: a type error written, reported; fixed,
// gone.
func TestNodeServersReportTypeErrors(t *testing.T) {
	for _, c := range []struct {
		server, bin, ws, file, bad, want string
	}{
		{"pyright", "pyright-langserver", "python", "", "\nbroken: int = \"not an int\"\n", "is not assignable to declared type \"int\""},
		{"typescript-language-server", "typescript-language-server", "typescript", "", "\nconst broken: number = \"not a number\";\n", "is not assignable to type 'number'"},
	} {
		t.Run(c.server, func(t *testing.T) {
			bin := nodeServer(t, c.bin)
			root, dir := copyWS(t, c.ws)
			m, err := New(root, Options{LookPath: func(name string) (string, error) {
				if name == c.bin {
					return bin, nil
				}
				return "", os.ErrNotExist
			}, Timeout: 30 * 1e9})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			file := firstFile(t, dir, map[string]string{"python": ".py", "typescript": ".ts"}[c.ws])
			src := read(t, dir, file)
			rep, err := m.AfterWrite(context.Background(), []File{write(t, dir, file, src+c.bad)})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range rep.Files[file] {
				if strings.Contains(d.Message, c.want) && d.Severity == "error" {
					found = true
				}
			}
			if !found || len(rep.Notes) > 0 {
				t.Fatalf("%s: %+v", file, rep)
			}
			rep, err = m.AfterWrite(context.Background(), []File{write(t, dir, file, src)})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range rep.Files[file] {
				if strings.Contains(d.Message, c.want) {
					t.Errorf("after the fix: %+v", d)
				}
			}
		})
	}
}

// firstFile is the first file with ext under dir, relative.
func firstFile(t *testing.T, dir, ext string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if found == "" && err == nil && !d.IsDir() && filepath.Ext(p) == ext {
			found, _ = filepath.Rel(dir, p)
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no %s file in %s", ext, dir)
	}
	return filepath.ToSlash(found)
}
