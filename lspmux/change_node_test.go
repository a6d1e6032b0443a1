package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

// pyright and typescript-language-server, like gopls: an edit reports
// what it caused, never what was wrong before in the edited file or in
// another one, started cold for the edit.
func TestNodeServersReportOnlyWhatAChangeCaused(t *testing.T) {
	for _, c := range []struct {
		server, bin, marker, file, other, old, bad, want string
	}{
		{"pyright", "pyright-langserver", "pyproject.toml", "a.py", "b.py",
			"x: int = \"old error\"\n", "y: int = \"new error\"\n", "\"Literal['new error']\" is not assignable"},
		{"typescript-language-server", "typescript-language-server", "tsconfig.json", "a.ts", "b.ts",
			"export const x: number = \"old error\";\n", "export const y: number = \"new error\";\n", "Type 'string' is not assignable to type 'number'"},
	} {
		t.Run(c.server, func(t *testing.T) {
			bin := nodeServer(t, c.bin)
			dir := t.TempDir()
			marker := "[project]\nname = \"x\"\n"
			if c.marker == "tsconfig.json" {
				marker = `{"compilerOptions": {"strict": true, "noEmit": true}}`
			}
			os.WriteFile(filepath.Join(dir, c.marker), []byte(marker), 0o644)
			os.WriteFile(filepath.Join(dir, c.file), []byte(c.old), 0o644)
			os.WriteFile(filepath.Join(dir, c.other), []byte(strings.Replace(c.old, "x", "z", 1)), 0o644)
			root, err := workspace.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			m, err := New(root, Options{LookPath: func(name string) (string, error) {
				if name == c.bin {
					return bin, nil
				}
				return "", os.ErrNotExist
			}, Timeout: 60 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ctx := context.Background()
			f := write(t, dir, c.file, "// a comment\n"+c.old)
			if c.server == "pyright" {
				f = write(t, dir, c.file, "# a comment\n"+c.old)
			}
			f.Old = []byte(c.old)
			rep, err := m.AfterWrite(ctx, []File{f})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Late != nil || len(rep.New) != 0 {
				t.Fatalf("a comment-only edit of a file with an old error: new %+v (late %v, notes %v)", rep.New, rep.Late, rep.Notes)
			}
			prev := string(f.Data)
			f = write(t, dir, c.file, prev+c.bad)
			f.Old = []byte(prev)
			rep, err = m.AfterWrite(ctx, []File{f})
			if err != nil {
				t.Fatal(err)
			}
			k := newKeys(rep)
			if len(k) != 1 || !strings.Contains(k[0], c.file+": ") || !strings.Contains(k[0], c.want) {
				t.Fatalf("one new error: new %v (notes %v)", k, rep.Notes)
			}
		})
	}
}
