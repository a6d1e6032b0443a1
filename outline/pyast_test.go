package outline

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// pyASTScript prints, for each file given, the functions and classes of
// the module body and (recursively) of class bodies, with the range the
// outline promises: from the first decorator to end_lineno.
const pyASTScript = `
import ast, sys
def walk(body, depth, in_class):
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in n.decorator_list] + [n.lineno])
            kind = "class" if isinstance(n, ast.ClassDef) else ("method" if in_class else "func")
            print("  " * depth + "%s %s L%d-%d" % (kind, n.name, start, n.end_lineno))
            if isinstance(n, ast.ClassDef):
                walk(n.body, depth + 1, True)
for path in sys.argv[1:]:
    print("== " + path)
    walk(ast.parse(open(path, encoding="utf-8").read()).body, 0, False)
`

func outlinePySymbols(syms []*Symbol, depth int, out []string) []string {
	for _, s := range syms {
		switch s.Kind {
		case "func", "method", "class":
			out = append(out, fmt.Sprintf("%s%s %s L%d-%d", strings.Repeat("  ", depth), s.Kind, s.Name, s.StartLine, s.EndLine))
			if s.Kind == "class" {
				out = outlinePySymbols(s.Children, depth+1, out)
			}
		}
	}
	return out
}

// TestOutlinePythonMatchesAST cross-checks functions, classes and methods
// against python3's ast module, on the fixtures and on standard-library
// modules.
func TestOutlinePythonMatchesAST(t *testing.T) {
	py, err := exec.LookPath("python3")
	wstest.RequirePeer(t, "python3 (the reference parser; apt-get install python3)", err == nil)
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		t.Fatalf("python3 stdlib path: %v", err)
	}
	stdlib := strings.TrimSpace(string(out))
	type file struct{ root, rel string }
	var files []file
	for _, rel := range []string{"inventory/__init__.py", "inventory/models.py", "inventory/cli.py"} {
		files = append(files, file{fixtureDir(t, "python"), rel})
	}
	for _, rel := range []string{"argparse.py", "dataclasses.py", "functools.py", "textwrap.py", "enum.py", "json/decoder.py", "json/encoder.py", "typing.py"} {
		files = append(files, file{stdlib, rel})
	}
	args := []string{"-c", pyASTScript}
	for _, f := range files {
		args = append(args, filepath.Join(f.root, f.rel))
	}
	raw, err := exec.Command(py, args...).Output()
	if err != nil {
		t.Fatalf("python3 ast: %v", err)
	}
	want := map[string][]string{}
	var cur string
	for _, l := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if p, ok := strings.CutPrefix(l, "== "); ok {
			cur = p
			continue
		}
		want[cur] = append(want[cur], l)
	}
	cache := syntax.NewParseCache(0)
	for _, f := range files {
		t.Run(f.rel, func(t *testing.T) {
			root, err := workspace.Open(f.root)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Of(context.Background(), root, cache, f.rel, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.File.Unparsed) > 0 {
				t.Errorf("syntax errors reported in a file python accepts: %v", r.File.Unparsed)
			}
			got := outlinePySymbols(r.File.Symbols, 0, nil)
			if diff := diffSymbolLines(want[filepath.Join(f.root, f.rel)], got); diff != "" {
				t.Errorf("outline differs from python ast (-ast +outline):\n%s", diff)
			}
		})
	}
}
