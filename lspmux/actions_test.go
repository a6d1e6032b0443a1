package lspmux

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// errorsModule is a small module whose errors are made with fmt.Errorf:
// a.go and b.go use fmt for nothing else, c.go also prints.
var errorsModule = map[string]string{
	"go.mod": "module example.com/errs\n\ngo 1.22\n",
	"a.go":   "package errs\n\nimport \"fmt\"\n\nfunc A() error { return fmt.Errorf(\"a failed\") }\n",
	"b.go":   "package errs\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc B(s string) error {\n\tif strings.TrimSpace(s) == \"\" {\n\t\treturn fmt.Errorf(\"b: empty\")\n\t}\n\treturn nil\n}\n",
	"c.go":   "package errs\n\nimport \"fmt\"\n\nfunc C() error {\n\tfmt.Println(\"c\")\n\treturn fmt.Errorf(\"c failed\")\n}\n",
}

// module writes files into a new directory and opens it.
func module(t *testing.T, files map[string]string) (*workspace.Root, string) {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

// The rewrite fmt.Errorf($MSG) → errors.New($MSG), made in memory: gopls
// organizes each file's new content, which is on no disk: "errors" is
// added, "fmt" dropped where nothing else uses it and kept where it is;
// the files on disk are untouched, and gopls is told their content again.
func TestOrganizeImportsGopls(t *testing.T) {
	root, dir := module(t, errorsModule)
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	var files []File
	for _, rel := range []string{"a.go", "b.go", "c.go"} {
		files = append(files, File{Path: rel, Data: []byte(strings.ReplaceAll(errorsModule[rel], "fmt.Errorf(", "errors.New("))})
	}
	// b.go is open in gopls already, with its content on disk.
	if _, err := m.Diagnostics(ctx, []string{"b.go"}); err != nil {
		t.Fatal(err)
	}
	out, err := m.OrganizeImports(ctx, files)
	if err != nil {
		t.Fatalf("OrganizeImports: %v", err)
	}
	if len(out) != 3 {
		t.Fatalf("got %d files", len(out))
	}
	want := map[string]string{
		"a.go": "package errs\n\nimport \"errors\"\n\nfunc A() error { return errors.New(\"a failed\") }\n",
		"b.go": "package errs\n\nimport (\n\t\"errors\"\n\t\"strings\"\n)\n\nfunc B(s string) error {\n\tif strings.TrimSpace(s) == \"\" {\n\t\treturn errors.New(\"b: empty\")\n\t}\n\treturn nil\n}\n",
		"c.go": "package errs\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nfunc C() error {\n\tfmt.Println(\"c\")\n\treturn errors.New(\"c failed\")\n}\n",
	}
	for _, f := range out {
		if string(f.Data) != want[f.Path] {
			t.Errorf("%s organized:\n%s\nwant:\n%s", f.Path, f.Data, want[f.Path])
		}
		if read(t, dir, f.Path) != errorsModule[f.Path] {
			t.Errorf("%s was written", f.Path)
		}
	}
	// gopls sees the disk again: its diagnostics are of the disk's
	// content (none), not of the overlay's.
	rep, err := m.Diagnostics(ctx, []string{"a.go", "b.go", "c.go"})
	if err != nil {
		t.Fatal(err)
	}
	for rel, ds := range rep.Files {
		if len(ds) > 0 {
			t.Errorf("%s after organizing: %+v", rel, ds)
		}
	}
	s := m.servers["gopls@"]
	s.mu.Lock()
	_, aOpen := s.docs[m.docURI("a.go")]
	s.mu.Unlock()
	if !aOpen {
		t.Error("a.go is not open after Diagnostics")
	}
}

// A file without a server that organizes (Python, a text file) and a
// deleted file pass through unchanged, with no error.
func TestOrganizeImportsPassesThrough(t *testing.T) {
	root, _ := module(t, map[string]string{"go.mod": "module x\n", "notes.txt": "hi\n"})
	m, err := New(root, Options{Specs: Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	in := []File{{Path: "notes.txt", Data: []byte("hello\n")}, {Path: "tool.py", Data: []byte("import os\n")}, {Path: "gone.go", Deleted: true}}
	out, err := m.OrganizeImports(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if string(out[i].Data) != string(in[i].Data) || out[i].Deleted != in[i].Deleted {
			t.Errorf("%s: %+v", in[i].Path, out[i])
		}
	}
}

// Without gopls, the content comes back as it was and the error says why.
func TestOrganizeImportsWithoutServer(t *testing.T) {
	root, _ := module(t, errorsModule)
	m, err := New(root, Options{LookPath: func(string) (string, error) { return "", os.ErrNotExist }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	in := []File{{Path: "a.go", Data: []byte("package errs\n")}}
	out, err := m.OrganizeImports(context.Background(), in)
	if err == nil || !strings.Contains(err.Error(), "gopls") {
		t.Errorf("err = %v", err)
	}
	if string(out[0].Data) != "package errs\n" {
		t.Errorf("content changed: %q", out[0].Data)
	}
}
