package lspmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
	"cchub/workspace/wstest"
)

// tsProject writes files into a new directory and returns a Mux of it
// running the real typescript-language-server.
func tsProject(t *testing.T, files map[string]string) (*Mux, string) {
	t.Helper()
	bin := nodeServer(t, "typescript-language-server")
	wstest.RequireProgram(t, "tsc")
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
	m, err := New(root, Options{LookPath: func(name string) (string, error) {
		if name == "typescript-language-server" {
			return bin, nil
		}
		return "", os.ErrNotExist
	}, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, dir
}

var tscLine = regexp.MustCompile(`^(.+?)\((\d+),(\d+)\): (error|warning) TS(\d+):`)

// tscErrors is what tsc --noEmit finds in the project at dir (its
// tsconfig.json, or jsconfig.json when it has one), as "path:line:col
// TScode", sorted.
func tscErrors(t *testing.T, dir string) []string {
	t.Helper()
	project := dir
	if _, err := os.Stat(filepath.Join(dir, "jsconfig.json")); err == nil {
		project = filepath.Join(dir, "jsconfig.json")
	}
	c := exec.Command("tsc", "--noEmit", "--pretty", "false", "-p", project)
	c.Dir = dir
	out, err := c.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("tsc: %v %s", err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := tscLine.FindStringSubmatch(line); m != nil {
			got = append(got, fmt.Sprintf("%s:%s:%s TS%s", filepath.ToSlash(m[1]), m[2], m[3], m[5]))
		}
	}
	sort.Strings(got)
	return got
}

// tsErrorsOf is ds's errors as tscErrors says them.
func tsErrorsOf(files map[string][]Diagnostic) []string {
	var got []string
	for _, ds := range files {
		for _, d := range ds {
			if d.Severity == "error" {
				got = append(got, fmt.Sprintf("%s:%d:%d TS%s", d.Path, d.Line, d.Col, d.Code))
			}
		}
	}
	sort.Strings(got)
	return got
}

// minus is what after has that before has not (as multisets).
func minus(after, before []string) []string {
	left := slices.Clone(before)
	var out []string
	for _, a := range after {
		if i := slices.Index(left, a); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		out = append(out, a)
	}
	return out
}

var tsLib = map[string]string{
	"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "commonjs"}, "include": ["src"]}` + "\n",
	"src/lib.ts":    "export function greet(name: string): string {\n\treturn \"hi \" + name;\n}\n",
	"src/a.ts":      "import { greet } from \"./lib\";\n\nexport const a = greet(\"a\");\n",
	"src/b.ts":      "import { greet } from \"./lib\";\n\nexport function b(): string {\n\treturn greet(\"b\") + greet(\"bb\");\n}\n",
	"src/old.ts":    "export const old: number = \"old\";\n",
}

// A signature changed in one file: its callers in files never opened
// break, and the edit's answer tells each of them, as tsc finds them; a
// fix of one is told as gone; an edit of a file with an old error tells
// nothing new. The server starts cold for the first edit.
func TestTypeScriptChangeTellsBrokenCallersInFilesNotOpen(t *testing.T) {
	m, dir := tsProject(t, tsLib)
	ctx := context.Background()
	start := tscErrors(t, dir)
	if len(start) != 1 {
		t.Fatalf("tsc before: %v", start)
	}

	// Cold: a comment in the edited file; the old error is not news.
	f := write(t, dir, "src/lib.ts", "// greet says hello.\n"+tsLib["src/lib.ts"])
	f.Old = []byte(tsLib["src/lib.ts"])
	rep, err := m.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Late != nil || len(rep.New) != 0 || len(rep.Notes) != 0 {
		t.Fatalf("cold comment-only edit: new %v, late %v, notes %v", rep.New, rep.Late, rep.Notes)
	}

	before := tscErrors(t, dir)
	prev := string(f.Data)
	f = write(t, dir, "src/lib.ts", strings.Replace(prev, "name: string)", "name: string, loud: boolean)", 1))
	f.Old = []byte(prev)
	rep, err = m.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	want := minus(tscErrors(t, dir), before)
	if got := tsErrorsOf(rep.New); rep.Late != nil || !slices.Equal(got, want) || len(want) != 3 {
		t.Fatalf("signature change: new %v, tsc's %v (late %v, notes %v)", got, want, rep.Late, rep.Notes)
	}
	if len(rep.Unchecked) != 0 {
		t.Fatalf("unchecked: %v", rep.Unchecked)
	}

	// A fix of the caller in a.ts: gone, nothing new.
	prev = read(t, dir, "src/a.ts")
	g := write(t, dir, "src/a.ts", strings.Replace(prev, `greet("a")`, `greet("a", true)`, 1))
	g.Old = []byte(prev)
	rep, err = m.AfterWrite(ctx, []File{g})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.New) != 0 || rep.Gone["src/a.ts"] != 1 || len(rep.Gone) != 1 {
		t.Fatalf("fix of a caller: new %v, gone %v (notes %v)", rep.New, rep.Gone, rep.Notes)
	}

	// An edit of the file with the old error: nothing new.
	prev = read(t, dir, "src/old.ts")
	h := write(t, dir, "src/old.ts", "// old is wrong.\n"+prev)
	h.Old = []byte(prev)
	rep, err = m.AfterWrite(ctx, []File{h})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.New) != 0 || len(rep.Gone) != 0 {
		t.Fatalf("comment in a file with an old error: new %v, gone %v", rep.New, rep.Gone)
	}

	// The workspace's diagnostics are tsc's.
	rep, err = m.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tsErrorsOf(rep.Files), tscErrors(t, dir); !slices.Equal(got, want) || len(rep.Notes) != 0 {
		t.Fatalf("workspace: %v, tsc's %v (notes %v)", got, want, rep.Notes)
	}
}

// JavaScript checked by TypeScript (jsconfig.json, checkJs): a parameter
// removed breaks the calls passing it in files never opened, told as tsc
// finds them; the workspace's diagnostics are tsc's.
func TestJavaScriptCheckJsChangeTellsBrokenCallers(t *testing.T) {
	greet := "/**\n * @param {string} name\n * @param {boolean} loud\n */\nfunction greet(name, loud) {\n\treturn loud ? name.toUpperCase() : name;\n}\nmodule.exports = { greet };\n"
	m, dir := tsProject(t, map[string]string{
		"package.json":  `{"name": "j", "private": true}` + "\n",
		"jsconfig.json": `{"compilerOptions": {"checkJs": true, "noEmit": true, "target": "es2020", "module": "commonjs"}, "include": ["lib"]}` + "\n",
		"lib/greet.js":  greet,
		"lib/a.js":      "const { greet } = require(\"./greet\");\n\nexports.a = greet(\"a\", true);\n",
		"lib/b.js":      "const { greet } = require(\"./greet\");\n\n/** @type {number} */\nexports.b = greet(\"b\", false).length;\nexports.bb = greet(\"bb\", true);\n",
		"lib/old.js":    "/** @type {number} */\nexports.old = \"old\";\n",
	})
	ctx := context.Background()
	before := tscErrors(t, dir)
	if len(before) != 1 {
		t.Fatalf("tsc before: %v", before)
	}
	f := write(t, dir, "lib/greet.js", strings.Replace(strings.Replace(greet, " * @param {boolean} loud\n", "", 1), "function greet(name, loud) {\n", "function greet(name) {\n\tconst loud = false;\n", 1))
	f.Old = []byte(greet)
	rep, err := m.AfterWrite(ctx, []File{f})
	if err != nil {
		t.Fatal(err)
	}
	want := minus(tscErrors(t, dir), before)
	if got := tsErrorsOf(rep.New); rep.Late != nil || !slices.Equal(got, want) || len(want) != 3 {
		t.Fatalf("parameter removed: new %v, tsc's %v (late %v, notes %v)", got, want, rep.Late, rep.Notes)
	}
	rep, err = m.Workspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tsErrorsOf(rep.Files), tscErrors(t, dir); !slices.Equal(got, want) || len(rep.Notes) != 0 {
		t.Fatalf("workspace: %v, tsc's %v (notes %v)", got, want, rep.Notes)
	}
}

// A project too large for the bound: the answer says how many of its
// files were checked, and the server is named unchecked; given the time,
// the answer is tsc's.
func TestTypeScriptWorkspaceTooLargeSaysHowFarItGot(t *testing.T) {
	const n = 3000
	files := map[string]string{"tsconfig.json": tsLib["tsconfig.json"]}
	for i := range n {
		files[fmt.Sprintf("src/m%04d.ts", i)] = fmt.Sprintf("export function f%d(x: number): number {\n\treturn x + %d;\n}\n", i, i)
	}
	files["src/m0000.ts"] += "export const bad: string = f1(1);\nimport { f1 } from \"./m0001\";\n"
	m, dir := tsProject(t, files)
	ctx := context.Background()
	rep, err := m.WorkspaceWithin(ctx, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tsErrorsOf(rep.Files), tscErrors(t, dir); !slices.Equal(got, want) || len(want) != 1 || len(rep.Notes) != 0 {
		t.Fatalf("given the time: %v, tsc's %v (notes %v)", got, want, rep.Notes)
	}

	// A file changed since (told to the server as a query would): the
	// project is due again. Bounds from 250 ms up, until one lets the
	// server list the project's files; 3000 files are not checked then.
	o, err := m.ownerOf("src/m0002.ts")
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := m.server(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	partial := regexp.MustCompile(`typescript-language-server (checked (\d+) of the project's (\d+) files|had not listed the project's files) \(not done after `)
	for i, bound := 0, 250*time.Millisecond; ; i, bound = i+1, bound*2 {
		text := fmt.Sprintf("// changed %d\n%s", i, files["src/m0002.ts"])
		if _, err := s.tell(ctx, m.docURI("src/m0002.ts"), o.lang, []byte(text)); err != nil {
			t.Fatal(err)
		}
		rep, err = m.WorkspaceWithin(ctx, bound)
		if err != nil {
			t.Fatal(err)
		}
		got := partial.FindStringSubmatch(strings.Join(rep.Notes, "\n"))
		if got == nil || !slices.Equal(rep.Unchecked, []string{"typescript-language-server"}) {
			t.Fatalf("bound %v: notes %q, unchecked %v", bound, rep.Notes, rep.Unchecked)
		}
		if got[2] == "" {
			continue // not listed in time: said so
		}
		if got[3] != fmt.Sprint(n) || got[2] == got[3] {
			t.Fatalf("bound %v: %s", bound, got[0])
		}
		break
	}
}

// A change another process made to a file the server does not hold open
// (DiskChanged): tsserver is made to read it at once, and the callers it
// breaks in other files are told as its doing, as tsc finds them.
func TestTypeScriptDiskChangeTellsBrokenCallers(t *testing.T) {
	m, dir := tsProject(t, tsLib)
	ctx := context.Background()
	// The server runs, with the project checked, and lib.ts not open.
	if rep, err := m.Workspace(ctx); err != nil || len(rep.Notes) != 0 {
		t.Fatalf("workspace: %v %v", rep, err)
	}
	before := tscErrors(t, dir)
	write(t, dir, "src/lib.ts", strings.Replace(tsLib["src/lib.ts"], "name: string)", "name: string, loud: boolean)", 1))
	rep, err := m.DiskChanged(ctx, []workspace.Change{{Path: "src/lib.ts", Kind: workspace.Changed}})
	if err != nil || rep.Late == nil || rep.Watched != 1 {
		t.Fatalf("disk change: %+v, %v", rep, err)
	}
	late, ok := rep.Late.Wait(ctx)
	if !ok {
		t.Fatal("the change on disk was never measured")
	}
	want := minus(tscErrors(t, dir), before)
	if got := tsErrorsOf(late.New); !slices.Equal(got, want) || len(want) != 3 {
		t.Fatalf("change on disk: new %v, tsc's %v (notes %v)", got, want, late.Notes)
	}
}
