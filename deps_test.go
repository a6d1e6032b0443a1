package cchub_test

// The layering of cchub's packages, written as data and checked, in the
// manner of Go's own go/build/deps_test.go. docs/architecture.md explains
// it; this test holds it. A new import between the project's packages must
// be allowed here, and the rules say which way every arrow may point.

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"cchub/lang"
)

// rules lists, floor by floor from the ground up, which of the project's
// packages each package may import. "A, B < C, D" means C and D may import
// A and B and everything A and B may import; NONE stands for no project
// package. Every package of the module must be named exactly once on the
// right of a "<". Lines starting with # are comments.
const rules = `
# The ground: files and text, processes, framing, diffs. No grammar, no
# feature, nothing that knows a protocol's meaning.
NONE < trust, framing, proc, unidiff, lang, textfmt;
# Test support: a private PostgreSQL server (package store/pgtest).
NONE < pgtest;
trust, proc, textfmt < workspace;
proc < gitcmd;
workspace < store, wstest;
store < ledger;

# Tree-sitter lives here: the grammars of the languages, the parse cache
# and the one reading of its C node layout.
lang < syntax;

# Features: each usable alone, on the ground, and on another feature's
# exported results only where an arrow is written here.
workspace < locate;
syntax, workspace < outline, structsearch;
syntax, workspace, unidiff < textedit;
outline, store < codegraph;
structsearch, store, unidiff < astedit;
workspace, gitcmd, unidiff < anchor;
# Both ask the language table: a server's languages, a program's adapter.
framing, workspace, proc, lang < lspmux, dapsession;
codegraph, gitcmd, unidiff < blast;
codegraph, lspmux < confirm;
# The token index: which files can hold a literal, for search and grep,
# which take its answers as a function and never import it.
store < tokenindex;
unidiff, textfmt < review;
# Go imports fixed in process: the standard library's table, x/tools'
# import formatting; no workspace, no process.
NONE < importfix;

# The core: one Hub per workspace composes the features. Every capability
# a front end offers is a Hub method.
locate, outline, textedit, structsearch, lspmux, dapsession, codegraph,
astedit, anchor, blast, ledger, tokenindex, confirm, importfix < hub;

# Front ends. MCP: the JSON-RPC line transport, then the server, one file
# per tool. The CLI: cobra commands; it imports feature packages for their
# option and result types only, and calls the hub. The demo drives the
# built binary as an MCP client.
NONE < stdio, stdiotest;
hub, stdio < mcpserver;
proc < demo;
# One hub per user: the private socket, the hello, the front that carries
# a session's lines; it knows no MCP and no hub (the CLI gives it both).
NONE < sharedhub;
mcpserver, review, demo, sharedhub < cchub;

# Benchmark drivers use one feature alone, or the hub as a front end
# would (blastoracle: the code graph, and the hub's confirmation); corpus
# is how they copy the projects they measure.
proc < corpus;
locate < grepbench;
framing, proc, trust, corpus < diagtruth;
proc, corpus < testsel;
proc, corpus, pgtest < sharedindex;
hub, corpus < blastoracle;
corpus < answerbytes;
hub, syntax, corpus < tscallers;
corpus < sessions;
corpus < picture;
codegraph, corpus < indexcost;
`

// externals says which of the project's packages may import a module
// from outside: the cgo grammars, the protocols' SDKs and the database
// driver each stay behind the one package that owns them.
var externals = map[string][]string{
	"github.com/smacker/go-tree-sitter":      {"syntax", "outline", "structsearch", "textedit", "codegraph"},
	"github.com/modelcontextprotocol/go-sdk": {"mcpserver", "stdio", "demo", "sessions"}, // sessions: a benchmark's MCP clients
	"modernc.org/sqlite":                     {"store"},
	"github.com/jackc/pgx/v5":                {"store", "pgtest"},
	"go.lsp.dev/":                            {"framing", "lspmux"},
	"github.com/google/go-dap":               {"dapsession"},
	"github.com/spf13/cobra":                 {"cchub"},
	"github.com/fsnotify/fsnotify":           {"workspace"},
	"golang.org/x/tools":                     {"blastoracle", "importfix"}, // the precise call graph the graph is measured against; goimports' import handling
}

// groundPackages must not link a tree-sitter grammar, directly or through
// anything they import: they are linked by tools that never parse code.
var groundPackages = []string{"lang", "textfmt", "trust", "workspace", "store", "lspmux", "dapsession", "locate", "anchor", "ledger", "framing", "proc", "gitcmd", "unidiff", "review"}

// policy is the parsed rules: for each package, the set it may import.
type policy struct {
	allowed map[string]map[string]bool
}

// parseRules reads the rules text into a policy, failing on a package
// named twice on the right or on the left before it is defined.
func parseRules(text string) (*policy, error) {
	p := &policy{allowed: map[string]map[string]bool{}}
	var stmt strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		stmt.WriteString(" " + line)
	}
	for _, s := range strings.Split(stmt.String(), ";") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		lhs, rhs, ok := strings.Cut(s, "<")
		if !ok {
			return nil, fmt.Errorf("rule %q has no <", s)
		}
		below := map[string]bool{}
		for _, name := range names(lhs) {
			if name == "NONE" {
				continue
			}
			reach, ok := p.allowed[name]
			if !ok {
				return nil, fmt.Errorf("rule %q: %s is used before it is defined", s, name)
			}
			below[name] = true
			for q := range reach {
				below[q] = true
			}
		}
		for _, name := range names(rhs) {
			if _, dup := p.allowed[name]; dup {
				return nil, fmt.Errorf("rule %q: %s is defined twice", s, name)
			}
			p.allowed[name] = below
		}
	}
	return p, sc.Err()
}

func names(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// check returns one line per arrow of imports (package → the project
// packages it imports, by short name) that the policy does not allow,
// and per package the policy does not name.
func (p *policy) check(imports map[string][]string) []string {
	var bad []string
	for pkg, deps := range imports {
		allowed, ok := p.allowed[pkg]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is not in the rules: add it on its floor", pkg))
			continue
		}
		for _, d := range deps {
			if !allowed[d] {
				bad = append(bad, fmt.Sprintf("%s imports %s, which the rules do not allow", pkg, d))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

const module = "cchub"

// shortName names a package of the module by its last element, which the
// rules use; the module's packages have unique last elements (checked).
func shortName(path string) string {
	if path == module+"/cmd/cchub" {
		return "cchub"
	}
	return path[strings.LastIndex(path, "/")+1:]
}

// goList runs go list in the module and returns its output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// imports is the module's import graph as go list sees it for this
// platform (non-test imports): per package, by short name, the project's
// packages it imports and the outside modules' packages it imports.
type imports struct {
	project, outside map[string][]string
}

func moduleImports(t *testing.T) imports {
	t.Helper()
	g := imports{project: map[string][]string{}, outside: map[string][]string{}}
	full := map[string]string{}
	for _, line := range goList(t, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == module {
			continue // the module's root holds only this test
		}
		name := shortName(f[0])
		if prev, dup := full[name]; dup {
			t.Fatalf("%s and %s share the short name %s; the rules need unique names", prev, f[0], name)
		}
		full[name] = f[0]
		g.project[name] = []string{}
		for _, imp := range f[1:] {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				g.project[name] = append(g.project[name], shortName(imp))
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				g.outside[name] = append(g.outside[name], imp)
			}
		}
	}
	return g
}

// checkOutside returns one line per import of an outside module that
// externals keeps to other packages.
func checkOutside(outside map[string][]string) []string {
	var bad []string
	for pkg, deps := range outside {
		for _, d := range deps {
			for prefix, owners := range externals {
				if strings.HasPrefix(d, prefix) && !slices.Contains(owners, pkg) {
					bad = append(bad, fmt.Sprintf("%s imports %s, which only %s may", pkg, d, strings.Join(owners, ", ")))
				}
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func TestDependencyRules(t *testing.T) {
	p, err := parseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	g := moduleImports(t)
	for _, msg := range p.check(g.project) {
		t.Error(msg)
	}
	for _, msg := range checkOutside(g.outside) {
		t.Error(msg)
	}
}

// TestDependencyRulesCatchAnArrow checks the checker on the real graph
// with arrows added that the rules forbid: one pointing up (the ground
// importing the hub), one sideways (grep's package parsing code), a
// package the rules do not know, and a grammar linked by a package that
// is not its owner.
func TestDependencyRulesCatchAnArrow(t *testing.T) {
	p, err := parseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	g := moduleImports(t)
	g.project["workspace"] = append(g.project["workspace"], "hub")
	g.project["locate"] = append(g.project["locate"], "syntax")
	g.project["newthing"] = nil
	g.outside["lspmux"] = append(g.outside["lspmux"], "github.com/smacker/go-tree-sitter/golang")
	got := strings.Join(append(p.check(g.project), checkOutside(g.outside)...), "\n")
	for _, want := range []string{
		"workspace imports hub, which the rules do not allow",
		"locate imports syntax, which the rules do not allow",
		"newthing is not in the rules",
		"lspmux imports github.com/smacker/go-tree-sitter/golang, which only",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the checker missed %q; it said:\n%s", want, got)
		}
	}
	if _, err := parseRules("NONE < a; a < b; c < d;"); err == nil {
		t.Error("a rule using an undefined package was accepted")
	}
	if _, err := parseRules("NONE < a; a < a;"); err == nil {
		t.Error("a package defined twice was accepted")
	}
}

// TestGroundLinksNoGrammar: the packages that need only files link no
// tree-sitter, directly or through anything they import, so the tools
// built on them never carry the cgo grammars.
func TestGroundLinksNoGrammar(t *testing.T) {
	for _, pkg := range groundPackages {
		for _, dep := range goList(t, "-deps", "./"+pkg) {
			if strings.Contains(dep, "tree-sitter") || dep == module+"/syntax" {
				t.Errorf("%s links %s: it must not link a grammar", pkg, dep)
			}
		}
	}
}

// TestOneLanguageTable: no package but lang spells a table of file
// extensions (a map, a list or a switch of them); every other package
// asks lang. A single extension named in a call (strings.HasSuffix(p,
// ".go")) is not a table and is left alone.
func TestOneLanguageTable(t *testing.T) {
	exts := map[string]bool{}
	for _, l := range lang.All() {
		for _, e := range l.Extensions {
			exts[e] = true
		}
	}
	found := extensionTables(t, exts)
	for _, f := range found {
		t.Errorf("%s: an extension table outside package lang; ask lang (lang.Of, lang.NameOf, lang.LSPLanguages, lang.IsTestFile) instead", f)
	}
}

// extensionTables lists, as file:line, the composite literals and case
// clauses of the module's non-test Go files outside package lang that
// name an extension of exts.
func extensionTables(t *testing.T, exts map[string]bool) []string {
	t.Helper()
	var found []string
	wd, _ := os.Getwd()
	for _, line := range goList(t, "-f", "{{.Dir}}{{range .GoFiles}} {{.}}{{end}}", "./...") {
		f := strings.Fields(line)
		if len(f) < 2 || filepath.Base(f[0]) == "lang" {
			continue
		}
		for _, name := range f[1:] {
			p := filepath.Join(f[0], name)
			lines, err := extensionTablesIn(p, exts)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(wd, p)
			for _, l := range lines {
				found = append(found, fmt.Sprintf("%s:%d", rel, l))
			}
		}
	}
	return found
}

// extensionTablesIn is the lines of the Go file at path where a composite
// literal or a case clause names an extension of exts.
func extensionTablesIn(path string, exts map[string]bool) ([]int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var lines []int
	ast.Inspect(file, func(n ast.Node) bool {
		var elems []ast.Expr
		switch n := n.(type) {
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					elems = append(elems, kv.Key, kv.Value)
				} else {
					elems = append(elems, e)
				}
			}
		case *ast.CaseClause:
			elems = n.List
		}
		for _, e := range elems {
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && exts[strings.ToLower(s)] {
					lines = append(lines, fset.Position(lit.Pos()).Line)
					return false
				}
			}
		}
		return true
	})
	return lines, nil
}

// TestOneLanguageTableCatchesATable checks the checker on a file it is
// given: a map and a switch of extensions are found, a suffix test and a
// list of other strings are not.
func TestOneLanguageTableCatchesATable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport \"strings\"\n\nvar m = map[string]string{\".py\": \"python\"}\n\nfunc f(p string) bool {\n\tswitch p {\n\tcase \".go\", \".rs\":\n\t\treturn true\n\t}\n\t_ = []string{\"go\", \"x.go\"}\n\treturn strings.HasSuffix(p, \".ts\")\n}\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := extensionTablesIn(p, map[string]bool{".py": true, ".go": true, ".rs": true, ".ts": true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lines, []int{5, 9}) {
		t.Errorf("tables found on lines %v, want [5 9]", lines)
	}
}

// TestHubParsesNothing: the hub is wiring. It may hold the parse cache it
// hands to the features, and nothing else of syntax: no language lookup,
// no parse, no tree (the features parse; the hub asks them).
func TestHubParsesNothing(t *testing.T) {
	allowed := map[string]bool{"ParseCache": true, "NewParseCache": true, "DefaultParseCacheBytes": true}
	f := strings.Fields(goList(t, "-f", "{{.Dir}}{{range .GoFiles}} {{.}}{{end}}", "./hub")[0])
	for _, name := range f[1:] {
		uses, err := syntaxUses(filepath.Join(f[0], name))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range uses {
			if !allowed[u] {
				t.Errorf("hub/%s uses syntax.%s: parsing and languages are the features' (ask structsearch, outline, codegraph or lang)", name, u)
			}
		}
	}
}

// syntaxUses lists the names the Go file at path uses from package syntax.
func syntaxUses(path string) ([]string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var uses []string
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "syntax" {
				uses = append(uses, sel.Sel.Name)
			}
		}
		return true
	})
	return uses, nil
}

func TestHubParsesNothingCatchesAParse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\nimport \"cchub/syntax\"\n\nvar _ = syntax.LanguageFor(\"a.go\")\nvar _ *syntax.ParseCache\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	uses, err := syntaxUses(p)
	if err != nil || !slices.Equal(uses, []string{"LanguageFor", "ParseCache"}) {
		t.Errorf("syntaxUses = %v, %v; want [LanguageFor ParseCache]", uses, err)
	}
}

// testKits are the packages any package's tests may import: they exist
// for tests (a workspace helper, a private PostgreSQL, the stdio
// transport's driver).
var testKits = []string{"wstest", "pgtest", "stdiotest"}

// TestTestImportsObeyTheFloors: a package's tests import what the package
// itself may, its own package (an external test) and the test kits; a
// test does not reach up past its floor.
func TestTestImportsObeyTheFloors(t *testing.T) {
	p, err := parseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	lines := goList(t, "-f", "{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}", "./...")
	for _, msg := range testImportViolations(p, lines) {
		t.Error(msg)
	}
}

// testImportViolations reads go list lines (a package, then what its
// tests import) and says which imports the floors forbid.
func testImportViolations(p *policy, lines []string) []string {
	var bad []string
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == module {
			continue
		}
		pkg := shortName(f[0])
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := shortName(imp)
			if dep == pkg || slices.Contains(testKits, dep) || p.allowed[pkg][dep] {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s's tests import %s, which the rules do not let %s import", pkg, dep, pkg))
		}
	}
	return bad
}

func TestTestImportsCatchAnArrow(t *testing.T) {
	p, err := parseRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	got := testImportViolations(p, []string{
		"cchub/workspace cchub/hub cchub/workspace/wstest cchub/workspace testing",
		"cchub/syntax cchub/lang cchub/workspace/wstest",
		"cchub/hub cchub/mcpserver",
	})
	want := []string{
		"workspace's tests import hub, which the rules do not let workspace import",
		"hub's tests import mcpserver, which the rules do not let hub import",
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations %q, want %q", got, want)
	}
}
