package hub

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/astedit"
)

// importsModule is a module whose errors are made with fmt.Errorf: a.go
// and b.go use fmt for nothing else, c.go also prints.
var importsModule = map[string]string{
	"go.mod": "module example.com/errs\n\ngo 1.22\n",
	"a.go":   "package errs\n\nimport \"fmt\"\n\nfunc A() error { return fmt.Errorf(\"a failed\") }\n",
	"b.go":   "package errs\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc B(s string) error {\n\tif strings.TrimSpace(s) == \"\" {\n\t\treturn fmt.Errorf(\"b: empty\")\n\t}\n\treturn nil\n}\n",
	"c.go":   "package errs\n\nimport \"fmt\"\n\nfunc C() error {\n\tfmt.Println(\"c\")\n\treturn fmt.Errorf(\"c failed\")\n}\n",
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goBuild runs go build ./... in dir and returns what it said.
func goBuild(t *testing.T, dir string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A staged rewrite fmt.Errorf($MSG) → errors.New($MSG) carries gopls's
// organized imports in its diff, before anyone approves it: "errors" is
// added, "fmt" dropped where nothing else uses it and kept in c.go, which
// prints; applying it leaves a module that builds.
func TestRewriteStagesOrganizedImports(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, importsModule)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "fmt.Errorf($MSG)", Template: "errors.New($MSG)", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if o.ImportsNote != "" || o.ImportsOrganized != 3 {
		t.Fatalf("organized %d, note %q", o.ImportsOrganized, o.ImportsNote)
	}
	text := o.Text()
	if !strings.Contains(text, "imports organized by the language server in 3 files") {
		t.Errorf("the answer does not say imports were organized:\n%s", text)
	}
	diffs := map[string]string{}
	for _, f := range o.Files {
		diffs[f.Path] = f.Diff
	}
	for _, rel := range []string{"a.go", "b.go"} {
		if !strings.Contains(diffs[rel], "-import \"fmt\"") && !strings.Contains(diffs[rel], "-\t\"fmt\"") {
			t.Errorf("%s: fmt is not dropped:\n%s", rel, diffs[rel])
		}
	}
	for _, rel := range []string{"a.go", "b.go", "c.go"} {
		if !strings.Contains(diffs[rel], "\"errors\"") {
			t.Errorf("%s: errors is not added:\n%s", rel, diffs[rel])
		}
	}
	if !strings.Contains(diffs["c.go"], "+\t\"fmt\"") || strings.Contains(diffs["c.go"], "-\t\"fmt\"") {
		t.Errorf("c.go: fmt, still used, is not kept:\n%s", diffs["c.go"])
	}
	// Nothing is written by staging.
	for _, rel := range []string{"a.go", "b.go", "c.go"} {
		if data, _ := os.ReadFile(filepath.Join(dir, rel)); string(data) != importsModule[rel] {
			t.Errorf("%s was written by staging", rel)
		}
	}
	if _, err := h.Apply(ctx, o.ID, NewRun()); err != nil {
		t.Fatal(err)
	}
	if out, err := goBuild(t, dir); err != nil {
		t.Errorf("the applied rewrite does not build: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "c.go")); !strings.Contains(string(data), "\"fmt\"") {
		t.Errorf("c.go lost fmt:\n%s", data)
	}
}

// Where no server can organize the imports, the change is staged as it
// is and the answer says so, and what to do.
func TestRewriteSaysWhenImportsWereNotOrganized(t *testing.T) {
	dir := writeModule(t, importsModule)
	t.Setenv("PATH", t.TempDir()) // no gopls (nor anything else)
	h, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	o, err := h.Rewrite(context.Background(), astedit.RewriteOptions{Pattern: "fmt.Errorf($MSG)", Template: "errors.New($MSG)", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if o.ImportsOrganized != 0 || len(o.Files) != 3 {
		t.Errorf("organized %d of %d files", o.ImportsOrganized, len(o.Files))
	}
	text := o.Text()
	if !strings.Contains(text, "imports were not organized: ") || !strings.Contains(text, "gopls") || !strings.Contains(text, "check its imports before applying") {
		t.Errorf("the answer does not say why imports were not organized:\n%s", text)
	}
}

// A rename staged through lsp still stages its diffs, through the same
// organizing (a Go rename needs none: nothing else changes).
func TestRenameStagesThroughOrganizing(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, importsModule)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	a, err := h.LSP(ctx, LSPQuery{Op: "rename", Path: "a.go", Symbol: "A", NewName: "Fail"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Staged == nil || len(a.Staged.Files) != 1 || a.Staged.ImportsNote != "" || a.Staged.ImportsOrganized != 0 {
		t.Fatalf("rename staged: %+v", a.Staged)
	}
	if !strings.Contains(a.Staged.Files[0].Diff, "+func Fail() error") {
		t.Errorf("rename diff:\n%s", a.Staged.Files[0].Diff)
	}
	if _, err := h.Apply(ctx, a.Staged.ID, NewRun()); err != nil {
		t.Fatal(err)
	}
	if out, err := goBuild(t, dir); err != nil {
		t.Errorf("the applied rename does not build: %v\n%s", err, out)
	}
}
