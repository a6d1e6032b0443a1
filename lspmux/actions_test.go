package lspmux

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
	return moduleIn(t, t.TempDir(), files)
}

// moduleIn writes files into dir and opens it.
func moduleIn(t *testing.T, dir string, files map[string]string) (*workspace.Root, string) {
	t.Helper()
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
	// gopls sees the disk again: what it has published of the files
	// when OrganizeImports returns is of the disk's content (nothing),
	// not of the overlay's (undefined: errors, fmt unused).
	s := m.servers["gopls@"]
	for _, rel := range []string{"a.go", "b.go", "c.go"} {
		s.mu.Lock()
		p, ok := s.diags[m.docURI(rel)]
		s.mu.Unlock()
		if ok && len(p.items) > 0 {
			t.Errorf("%s right after organizing: %+v", rel, p.items)
		}
	}
	rep, err := m.Diagnostics(ctx, []string{"a.go", "b.go", "c.go"})
	if err != nil {
		t.Fatal(err)
	}
	for rel, ds := range rep.Files {
		if len(ds) > 0 {
			t.Errorf("%s after organizing: %+v", rel, ds)
		}
	}
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

// gopls's quick fixes come back as one-line hints for the errors they
// fix: the import to add. gopls (v0.23) offers no quick fix for an unused
// import (only the organize-imports source action), so that error has no
// hint. A server that is not running is not started for hints, and one
// that does not answer costs the bound, not the answer.
func TestQuickFixesGopls(t *testing.T) {
	root, _ := module(t, map[string]string{
		"go.mod": "module example.com/q\n\ngo 1.22\n",
		"q.go":   "package q\n\nimport \"fmt\"\n\nfunc Q() error { return errors.New(\"q\") }\n",
	})
	m := newGoMux(t, root, Options{})
	ctx := context.Background()
	early := []Diagnostic{{Path: "q.go", Line: 5, Col: 25, EndLine: 5, EndCol: 31, Severity: "error", Message: "undefined: errors"}}
	if fixes := m.QuickFixes(ctx, "q.go", early); fixes != nil || len(m.Running()) != 0 {
		t.Fatalf("before any server ran: hints %v, running %v", fixes, m.Running())
	}
	rep, err := m.Diagnostics(ctx, []string{"q.go"})
	if err != nil {
		t.Fatal(err)
	}
	ds := rep.Files["q.go"]
	undefined, unused := -1, -1
	for i, d := range ds {
		switch d.Message {
		case "undefined: errors":
			undefined = i
		case "\"fmt\" imported and not used":
			unused = i
		}
	}
	if undefined < 0 || unused < 0 {
		t.Fatalf("diagnostics: %+v", ds)
	}
	fixes := m.QuickFixes(ctx, "q.go", ds)
	if fixes[undefined] != "Add import: \"errors\"" {
		t.Errorf("hint for undefined: errors: %q", fixes[undefined])
	}
	if _, ok := fixes[unused]; ok || len(fixes) != 1 {
		t.Errorf("hints: %v", fixes)
	}
	// A diagnostic the server did not publish (made from its words)
	// still finds its fix.
	if f := m.QuickFixes(ctx, "q.go", []Diagnostic{{Path: "q.go", Line: ds[undefined].Line, Col: ds[undefined].Col, EndLine: ds[undefined].EndLine, EndCol: ds[undefined].EndCol, Severity: "error", Message: "undefined: errors"}}); f[0] != "Add import: \"errors\"" {
		t.Errorf("hint for a copy: %v", f)
	}
	// gopls stopped (SIGSTOP): no answer, no hint, and QuickFixes
	// returns.
	pid := m.servers["gopls@"].proc.Pid()
	stop(t, pid)
	if f := m.QuickFixes(ctx, "q.go", ds); f != nil {
		t.Errorf("a stopped server gave hints: %v", f)
	}
}

// pyright (1.1.414) offers one quick fix, for a third-party import without
// type stubs when reportMissingTypeStubs is on: "Create Type Stub For
// ...". Its common errors (an unresolved import, an undefined name) have
// none, and get no hint.
func TestQuickFixesPyright(t *testing.T) {
	bin := nodeServer(t, "pyright-langserver")
	root, _ := module(t, map[string]string{
		"pyrightconfig.json": `{"venvPath": ".", "venv": "venv", "reportMissingTypeStubs": "error"}`,
		"venv/pyvenv.cfg":    "home = /nonexistent\n",
		"venv/lib/python3.12/site-packages/untyped/__init__.py": "def f(x):\n    return x\n",
		"app.py": "import untyped\nimport nowhere\n\nprint(untyped.f(1), undefined_name)\n",
	})
	m, err := New(root, Options{Timeout: 30 * time.Second, LookPath: func(name string) (string, error) {
		if name == "pyright-langserver" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	rep, err := m.Diagnostics(ctx, []string{"app.py"})
	if err != nil {
		t.Fatal(err)
	}
	ds := rep.Files["app.py"]
	fixes := m.QuickFixes(ctx, "app.py", ds)
	want := map[string]string{
		"reportMissingTypeStubs":  "Create Type Stub For \"untyped\"",
		"reportMissingImports":    "",
		"reportUndefinedVariable": "",
	}
	for i, d := range ds {
		w, ok := want[d.Code]
		if !ok {
			t.Errorf("unexpected: %+v", d)
			continue
		}
		delete(want, d.Code)
		if fixes[i] != w {
			t.Errorf("%s: hint %q, want %q", d.Code, fixes[i], w)
		}
	}
	if len(want) > 0 {
		t.Errorf("not reported: %v; diagnostics %+v", want, ds)
	}
}

// stop stops process pid (SIGSTOP) and waits until it is stopped: the
// signal is delivered asynchronously, and on a loaded machine a server
// can still answer a request sent just after kill returns. It is
// continued when the test ends.
func stop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return // no /proc here: the signal is all there is
		}
		// pid (comm) state …: the state follows the last ')'.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't') {
			return
		}
	}
	t.Fatalf("process %d did not stop within 5s of SIGSTOP", pid)
}

// A server that does not answer (gopls stopped by SIGSTOP) costs the
// Mux's timeout: the content comes back as it was, and the error says
// the server did not answer in time.
func TestOrganizeImportsSlowServer(t *testing.T) {
	root, _ := module(t, errorsModule)
	m := newGoMux(t, root, Options{Timeout: time.Second, OrganizeTimeout: time.Second})
	ctx := context.Background()
	if _, err := m.Diagnostics(ctx, []string{"a.go"}); err != nil {
		t.Fatal(err)
	}
	pid := m.servers["gopls@"].proc.Pid()
	stop(t, pid)
	in := []File{{Path: "a.go", Data: []byte(strings.ReplaceAll(errorsModule["a.go"], "fmt.Errorf(", "errors.New("))}}
	out, err := m.OrganizeImports(ctx, in)
	// Stopped while it answers, or while an earlier change (the
	// diagnostics above, still settling on a loaded machine) holds its
	// turn: either way the answer is bounded and says so.
	if err == nil || !strings.Contains(err.Error(), "a.go: gopls did not answer within 1s") && !strings.Contains(err.Error(), "a.go: gopls was busy with an earlier change for 1s") {
		t.Errorf("err = %v", err)
	}
	if string(out[0].Data) != string(in[0].Data) {
		t.Errorf("content changed: %q", out[0].Data)
	}
}

// Edits are placed by LSP's positions: 0-based lines, UTF-16 code units
// (an emoji is two).
func TestApplyEditsUTF16(t *testing.T) {
	text := []byte("a😀b\né=c\n")
	got, err := applyEdits(text, []textEdit{
		{Range: lspRange{Start: struct{ Line, Character uint32 }{0, 3}, End: struct{ Line, Character uint32 }{0, 4}}, NewText: "B"},
		{Range: lspRange{Start: struct{ Line, Character uint32 }{1, 1}, End: struct{ Line, Character uint32 }{1, 2}}, NewText: ":="},
	})
	if err != nil || got != "a😀B\né:=c\n" {
		t.Errorf("got %q, %v", got, err)
	}
}
