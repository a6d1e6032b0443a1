package hub

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cchub/astedit"
	"cchub/workspace/wstest"
)

// importsModule is a module whose errors are made with fmt.Errorf: a.go,
// b.go and sub/d.go (with a group of the module's imports) use fmt for
// nothing else, c.go also prints.
var importsModule = map[string]string{
	"go.mod":             "module example.com/errs\n\ngo 1.22\n",
	"a.go":               "package errs\n\nimport \"fmt\"\n\nfunc A() error { return fmt.Errorf(\"a failed\") }\n",
	"b.go":               "package errs\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc B(s string) error {\n\tif strings.TrimSpace(s) == \"\" {\n\t\treturn fmt.Errorf(\"b: empty\")\n\t}\n\treturn nil\n}\n",
	"c.go":               "package errs\n\nimport \"fmt\"\n\nfunc C() error {\n\tfmt.Println(\"c\")\n\treturn fmt.Errorf(\"c failed\")\n}\n",
	"sub/d.go":           "package sub\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\n\t\"example.com/errs/sub/inner\"\n)\n\n// Fail fails.\nfunc Fail() error {\n\tif strings.HasPrefix(inner.Name, \"x\") {\n\t\treturn fmt.Errorf(\"x\")\n\t}\n\treturn fmt.Errorf(\"d failed\")\n}\n",
	"sub/inner/inner.go": "package inner\n\n// Name is a name.\nconst Name = \"inner\"\n",
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

// goBuild runs go build ./... in dir with the real go command (found
// before a test empties PATH) and returns what it said.
func goBuild(t *testing.T, dir string) (string, error) {
	t.Helper()
	cmd := exec.Command(goCommand(t), "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var goPath = sync.OnceValues(func() (string, error) { return exec.LookPath("go") })

func goCommand(t *testing.T) string {
	t.Helper()
	p, err := goPath()
	wstest.RequirePeer(t, "the go command", err == nil)
	return p
}

// noServers empties PATH (no gopls, nor anything else), after finding
// the go command the test builds with.
func noServers(t *testing.T) {
	goCommand(t)
	t.Setenv("PATH", t.TempDir())
}

// The cold-server case of issue 40: with no gopls, a staged rewrite
// fmt.Errorf($MSG) → errors.New($MSG) carries its import changes in its
// diff before anyone approves it — "errors" added, "fmt" dropped where
// nothing else uses it and kept in c.go, which prints — fixed in process;
// applying it leaves a module that builds.
func TestRewriteStagesFixedImportsWithNoServer(t *testing.T) {
	dir := writeModule(t, importsModule)
	noServers(t)
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
	if o.ImportsNote != "" || o.ImportsFixed != 4 || o.ImportsOrganized != 0 || len(o.Unorganized) != 0 {
		t.Fatalf("fixed %d, organized %d, unorganized %v, note %q", o.ImportsFixed, o.ImportsOrganized, o.Unorganized, o.ImportsNote)
	}
	text := o.Text()
	if !strings.Contains(text, "imports fixed in 4 files") {
		t.Errorf("the answer does not say imports were fixed:\n%s", text)
	}
	diffs := map[string]string{}
	for _, f := range o.Files {
		diffs[f.Path] = f.Diff
	}
	for _, rel := range []string{"a.go", "b.go", "sub/d.go"} {
		if !strings.Contains(diffs[rel], "-import \"fmt\"") && !strings.Contains(diffs[rel], "-\t\"fmt\"") {
			t.Errorf("%s: fmt is not dropped:\n%s", rel, diffs[rel])
		}
	}
	for _, rel := range []string{"a.go", "b.go", "c.go", "sub/d.go"} {
		if !strings.Contains(diffs[rel], "\"errors\"") {
			t.Errorf("%s: errors is not added:\n%s", rel, diffs[rel])
		}
	}
	if !strings.Contains(diffs["c.go"], "+\t\"fmt\"") || strings.Contains(diffs["c.go"], "-\t\"fmt\"") {
		t.Errorf("c.go: fmt, still used, is not kept:\n%s", diffs["c.go"])
	}
	// Nothing is written by staging.
	for rel := range importsModule {
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
}

// A change whose imports need a package only the server can name, with
// no server, is staged with the files named unorganized; applying it
// asks the server again and, while there is none, refuses with the call
// to make and writes nothing; once there is one, applying organizes the
// imports and stages the changed diff again for review.
func TestUnorganizedChangeIsRefused(t *testing.T) {
	dir := writeModule(t, importsModule)
	path := os.Getenv("PATH")
	noServers(t)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "fmt.Errorf(\"a failed\")", Template: "sub.Fail()", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Unorganized) != 1 || o.Unorganized[0] != "a.go" {
		t.Fatalf("unorganized %v, note %q", o.Unorganized, o.ImportsNote)
	}
	text := o.Text()
	for _, want := range []string{"imports of 1 file were not organized: ", "gopls", "sub: not a standard-library package", "applying it asks the server again first"} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not say %q:\n%s", want, text)
		}
	}
	loaded, err := h.StagedChange(ctx, o.ID)
	if err != nil || !strings.Contains(loaded.ImportsText(), "were not organized when it was staged") {
		t.Errorf("the staged change forgot its imports are not organized: %v %q", err, loaded.ImportsText())
	}
	_, err = h.Apply(ctx, o.ID, NewRun())
	if err == nil || !strings.Contains(err.Error(), "resolve action=accept id="+o.ID) || !strings.Contains(err.Error(), "was not applied") {
		t.Fatalf("applied, or refused without the call to make: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(data) != importsModule["a.go"] {
		t.Errorf("a.go was written:\n%s", data)
	}

	// Later, with gopls: applying organizes first, and since the diff
	// changes it is staged again for review; that one applies and builds.
	t.Setenv("PATH", path)
	requireGopls(t)
	h2, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	_, err = h2.Apply(ctx, o.ID, NewRun())
	var again string
	if err != nil {
		if _, rest, ok := strings.Cut(err.Error(), "staged again as "); ok {
			again, _, _ = strings.Cut(rest, " ")
		}
	}
	if again == "" {
		t.Fatalf("applying with gopls did not stage the organized change again: %v", err)
	}
	re, err := h2.StagedChange(ctx, again)
	if err != nil || len(re.Unorganized) != 0 || !strings.Contains(re.Files[0].Diff, "example.com/errs/sub") {
		t.Fatalf("the change staged again: %v %+v", err, re)
	}
	if _, err := h2.Apply(ctx, again, NewRun()); err != nil {
		t.Fatal(err)
	}
	if out, err := goBuild(t, dir); err != nil {
		t.Errorf("the applied rewrite does not build: %v\n%s", err, out)
	}
}

// With gopls, what the in-process fix leaves (a package of the module)
// is organized by the server at staging, and the change builds.
func TestServerOrganizesWhatIsLeft(t *testing.T) {
	requireGopls(t)
	dir := writeModule(t, importsModule)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "fmt.Errorf(\"a failed\")", Template: "sub.Fail()", Lang: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if o.ImportsFixed != 1 || o.ImportsOrganized != 1 || len(o.Unorganized) != 0 {
		t.Fatalf("fixed %d organized %d unorganized %v note %q", o.ImportsFixed, o.ImportsOrganized, o.Unorganized, o.ImportsNote)
	}
	if !strings.Contains(o.Files[0].Diff, "example.com/errs/sub") {
		t.Errorf("the module's package is not imported:\n%s", o.Files[0].Diff)
	}
	if _, err := h.Apply(ctx, o.ID, NewRun()); err != nil {
		t.Fatal(err)
	}
	if out, err := goBuild(t, dir); err != nil {
		t.Errorf("the applied rewrite does not build: %v\n%s", err, out)
	}
}

// A Python rewrite: cchub organizes no Python imports, so the answer
// says they are not checked; nothing is known unorganized, and applying
// it writes it.
func TestPythonImportsAreSaidUnchecked(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"pyproject.toml": "[project]\nname = \"p\"\n",
		"a.py":           "import os\n\n\ndef path(a, b):\n    return os.path.join(a, b)\n",
	})
	noServers(t)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "os.path.join($A, $B)", Template: "str(pathlib.Path($A) / $B)", Lang: "python"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Text(), "imports of 1 python file are not checked (cchub organizes the imports of Go, TypeScript and JavaScript only)") || len(o.Unorganized) != 0 {
		t.Errorf("the answer does not say Python imports are not checked:\n%s", o.Text())
	}
	if _, err := h.Apply(ctx, o.ID, NewRun()); err != nil {
		t.Fatal(err)
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

// A staged TypeScript rewrite keeps the build: the server adds the import
// the new code needs and drops the one it no longer uses (its "add all
// missing imports" and "remove unused imports", not organize-imports,
// which would sort every import too), shown in the diff; accepted, tsc
// finds no error.
func TestTypeScriptRewriteStagesItsImports(t *testing.T) {
	wstest.RequireProgram(t, "typescript-language-server")
	tsc, err := exec.LookPath("tsc")
	wstest.RequirePeer(t, "tsc (make test installs TypeScript into .tools/lsp)", err == nil)
	files := map[string]string{
		"package.json":  "{\"name\": \"ts-imports\", \"private\": true}\n",
		"tsconfig.json": "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"noUnusedLocals\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}, \"include\": [\"src\"]}\n",
		"src/money.ts":  "export function oldFormat(n: number): string {\n  return n.toFixed(2);\n}\n\nexport function formatMoney(n: number): string {\n  return n.toFixed(2) + \" EUR\";\n}\n",
		"src/zeta.ts":   "export const Z = 1;\n",
		"src/shop.ts":   "import { Z } from \"./zeta\";\nimport { oldFormat } from \"./money\";\n\nexport function price(n: number): string {\n  return oldFormat(n * Z);\n}\n",
	}
	dir := writeModule(t, files)
	h, err := Open(dir, Options{Approval: ApproveAgent})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: "oldFormat($N)", Template: "formatMoney($N)", Lang: "typescript", Paths: []string{"src/shop.ts"}})
	if err != nil {
		t.Fatal(err)
	}
	if o.ImportsOrganized != 1 || len(o.Unorganized) != 0 {
		t.Fatalf("organized %d, unorganized %v, note %q:\n%s", o.ImportsOrganized, o.Unorganized, o.ImportsNote, o.Text())
	}
	diff := o.Files[0].Diff
	if !strings.Contains(diff, "formatMoney") || !strings.Contains(diff, "-import { oldFormat } from \"./money\";") {
		t.Errorf("the diff does not swap the import:\n%s", diff)
	}
	if strings.Contains(diff, "-import { Z } from \"./zeta\";") {
		t.Errorf("an import the change did not touch was moved (organize-imports' sorting):\n%s", diff)
	}
	if _, err := h.Apply(ctx, o.ID, NewRun()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tsc, "--noEmit", "-p", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		got, _ := os.ReadFile(filepath.Join(dir, "src/shop.ts"))
		t.Errorf("the applied rewrite does not compile: %v\n%s\nsrc/shop.ts:\n%s", err, out, got)
	}
}
