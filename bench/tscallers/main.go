// Command tscallers measures the code graph's direct callers in
// TypeScript against the TypeScript compiler's own checker (issue 41),
// as bench/blastoracle does for Go. It is a benchmark, run by `make
// bench`; it asserts nothing.
//
// The oracle is oracle.js, run with node and the typescript package of
// the tools directory: every call and construction of the project's
// files, its callee's symbol resolved by the checker (import aliases
// followed to the declaration), named as the graph names definitions
// (path and Type.name). For every definition the oracle sees called that
// the graph has, the graph's callers at each evidence threshold are
// judged: precision and recall of the calling definitions, overall and
// by the call's shape (f(), ns.f(), this.m(), new X().m(), …). The
// import-resolvable shapes are those a file's imports and its own text
// settle; value.m() on a value of an inferred type is the checker's.
//
//	go run ./bench/tscallers [-corpus immer,zod] [-json] [-v]
//	go run ./bench/tscallers -confirm   # also with the hub's confirmation
//
// With -confirm, every callee's callers are asked again through
// BlastWith with the Confirmer of a hub opened on the copy (the tools
// directory's typescript-language-server): name-only and possible edges
// are asked, refuted ones left out, confirmed ones counted as exact.
//
// The corpora are npm packages that ship their TypeScript sources,
// unpacked (npm pack, once) into the tools directory's corpus/ and
// copied into a temporary directory with a tsconfig.json of the
// benchmark's own.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cchub/bench/corpus"
	"cchub/codegraph"
	"cchub/proc"
	"cchub/syntax"
	"cchub/workspace"
)

// project is one corpus: an npm package, the directory of its sources
// copied to src/, and the tsconfig files written beside them.
type project struct {
	Name, Package, Dir, Src string
	Configs                 map[string]string
}

var projects = []project{
	{Name: "immer", Package: "immer@10.1.1", Dir: "immer-10.1.1", Src: "src",
		Configs: map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"esnext","moduleResolution":"bundler","lib":["es2020","dom"],"skipLibCheck":true},"include":["src"]}` + "\n"}},
	// zod 3's own sources (3.25 ships them as src/v3); its tests import
	// the package as "zod/v3", which a path alias of an extended
	// tsconfig (with comments, as tsconfig files have) maps to the
	// sources.
	{Name: "zod", Package: "zod@3.25.76", Dir: "zod-3.25.76", Src: "src/v3",
		Configs: map[string]string{
			"tsconfig.base.json": "{\n  // shared by the package's configurations\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": { \"zod/v3\": [\"src/index.ts\"] }, /* the package itself */\n  },\n}\n",
			"tsconfig.json":      `{"extends":"./tsconfig.base.json","compilerOptions":{"strict":true,"noEmit":true,"target":"es2020","module":"esnext","moduleResolution":"bundler","lib":["es2020","dom"],"skipLibCheck":true},"include":["src"]}` + "\n",
		}},
}

func main() {
	names := flag.String("corpus", "immer,zod", "corpora to run, comma-separated: immer, zod")
	tools := flag.String("tools", ".tools", "the tools directory: lsp/node_modules/typescript, and corpus/ where the packages are unpacked")
	asJSON := flag.Bool("json", false, "print the reports as JSON instead of tables")
	verbose := flag.Bool("v", false, "list every false positive and negative on stderr")
	keep := flag.Bool("keep", false, "keep the temporary copies (their path is printed)")
	confirm := flag.Bool("confirm", false, "also judge the callers with the hub's confirmation by typescript-language-server")
	budget := flag.Duration("budget", time.Minute, "with -confirm: the Confirmer's budget for each callee's callers")
	flag.Parse()
	if !*confirm {
		*budget = 0
	} else if err := serverPath(*tools); err != nil {
		fail(err)
	}

	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "tscallers-")
	if err != nil {
		fail(err)
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "tscallers: copies kept in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	tsDir, err := filepath.Abs(filepath.Join(*tools, "lsp", "node_modules", "typescript"))
	if err != nil {
		fail(err)
	}
	if _, err := os.Stat(filepath.Join(tsDir, "package.json")); err != nil {
		fail(fmt.Errorf("no typescript package in %s: `make bench` installs it (the LSP tools), or give -tools", tsDir))
	}
	var reports []*report
	for _, n := range strings.Split(*names, ",") {
		i := indexOf(strings.TrimSpace(n))
		if i < 0 {
			fail(fmt.Errorf("no corpus %q: give immer or zod", n))
		}
		r, err := runProject(ctx, projects[i], *tools, tsDir, filepath.Join(tmp, projects[i].Name), *verbose, *budget)
		if err != nil {
			fail(fmt.Errorf("%s: %w", n, err))
		}
		reports = append(reports, r)
		if !*asJSON {
			r.print()
		}
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"version": 1, "corpora": reports})
	}
}

func indexOf(name string) int {
	for i, p := range projects {
		if p.Name == name {
			return i
		}
	}
	return -1
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "tscallers: %v\n", err)
	os.Exit(1)
}

// fetch unpacks the project's npm package into tools/corpus (once).
func fetch(ctx context.Context, p project, tools string) (string, error) {
	cache, err := filepath.Abs(filepath.Join(tools, "corpus"))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, p.Dir)
	if _, err := os.Stat(filepath.Join(dir, p.Src)); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tgz := p.Dir + ".tgz"
	if out, err := run(ctx, cache, "npm", "pack", p.Package, "--silent"); err != nil {
		return "", fmt.Errorf("npm pack %s: %v %s: the benchmark needs the npm registry once", p.Package, err, out)
	}
	if out, err := run(ctx, cache, "tar", "xzf", tgz, "-C", dir, "--strip-components=1"); err != nil {
		return "", fmt.Errorf("unpack %s: %v %s", tgz, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, p.Src)); err != nil {
		return "", fmt.Errorf("%s has no %s: the package no longer ships its sources", p.Package, p.Src)
	}
	return dir, nil
}

func run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	var out, errOut strings.Builder
	cmd := proc.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errOut
	p, err := cmd.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", proc.CommandLine(name, args), err)
	}
	if err := p.Wait(); err != nil {
		return []byte(errOut.String()), err
	}
	return []byte(out.String()), nil
}

// oracleOut is what oracle.js prints.
type oracleOut struct {
	Files      []string     `json:"files"`
	Sites      []oracleSite `json:"sites"`
	Unresolved int          `json:"unresolved"`
	Errors     int          `json:"errors"`
}

type oracleSite struct {
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Col     int      `json:"col"`
	Callers []string `json:"callers"`
	Callee  struct {
		File string `json:"file"`
		Qual string `json:"qual"`
		Kind string `json:"kind"`
	} `json:"callee"`
	Shape string `json:"shape"`
	Text  string `json:"text"`
}

// def names a definition across the oracle and the graph.
type def struct{ Path, Qual string }

func (d def) String() string { return d.Path + ":" + d.Qual }

// importShapes are the calls a file's imports and text settle.
var importShapes = map[string]bool{
	"f()": true, "ns.f()": true, "X.m()": true, "this.m()": true, "new X()": true,
	"new X().m()": true, "x = new X(); x.m()": true, "new ns.f()": true,
}

// runProject measures one corpus; a budget above 0 judges the callers
// again with the hub's confirmation, that long for each callee.
func runProject(ctx context.Context, p project, tools, tsDir, dir string, verbose bool, budget time.Duration) (*report, error) {
	pkg, err := fetch(ctx, p, tools)
	if err != nil {
		return nil, err
	}
	if err := corpus.CopyTree(filepath.Join(pkg, p.Src), filepath.Join(dir, "src"), corpus.Copy{}); err != nil {
		return nil, err
	}
	for name, text := range p.Configs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	r := &report{Corpus: p.Name, Package: p.Package}
	t0 := time.Now()
	script, err := filepath.Abs(filepath.Join("bench", "tscallers", "oracle.js"))
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, dir, "node", script, tsDir, dir)
	if err != nil {
		return nil, fmt.Errorf("node oracle.js: %v %s (run from the repository's root)", err, out)
	}
	var or oracleOut
	if err := json.Unmarshal(out, &or); err != nil {
		return nil, fmt.Errorf("oracle.js's output: %w", err)
	}
	r.OracleS = time.Since(t0).Seconds()
	r.Files, r.Sites, r.Unresolved, r.CheckErrors = len(or.Files), len(or.Sites), or.Unresolved, or.Errors

	t0 = time.Now()
	root, err := workspace.Open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	cache := syntax.NewParseCache(0)
	defer cache.Close()
	x := codegraph.NewIndex(root, cache)
	if _, err := x.Update(ctx); err != nil {
		return nil, err
	}
	all, err := x.Symbols("*")
	if err != nil {
		return nil, err
	}
	r.IndexS = time.Since(t0).Seconds()
	defs := map[def][]codegraph.Def{}
	for _, d := range all {
		k := def{d.Path, unquote(d.Qual())}
		defs[k] = append(defs[k], d)
	}
	// The oracle's callers of each callee, by the innermost holder the
	// graph has a definition of; the shapes of the calls.
	want := map[def]map[def]string{}
	unmapped := map[def][]oracleSite{}
	for _, s := range or.Sites {
		callee := def{s.Callee.File, s.Callee.Qual}
		var caller def
		for _, c := range s.Callers {
			if _, ok := defs[def{s.File, c}]; ok {
				caller = def{s.File, c}
				break
			}
		}
		if len(s.Callers) == 0 {
			r.TopLevel++ // the graph keeps no edges from a file's top level
			continue
		}
		if caller.Path == "" {
			unmapped[callee] = append(unmapped[callee], s)
			continue
		}
		if want[callee] == nil {
			want[callee] = map[def]string{}
		}
		if old, ok := want[callee][caller]; !ok || importShapes[s.Shape] && !importShapes[old] {
			want[callee][caller] = s.Shape
		}
	}
	var callees []def
	for c := range want {
		callees = append(callees, c)
	}
	for c := range unmapped {
		if want[c] == nil {
			callees = append(callees, c)
		}
	}
	sort.Slice(callees, func(i, j int) bool { return callees[i].String() < callees[j].String() })

	all2, imp := newScore(), newScore()
	byShape := map[string]*shapeScore{}
	for _, c := range callees {
		r.UnmappedCallers += len(unmapped[c])
		ds, ok := defs[c]
		if !ok {
			r.NotInGraph++
			r.NotInGraphEdges += len(want[c])
			if verbose {
				fmt.Fprintf(os.Stderr, "%s: callee not in the graph: %s\n", p.Name, c)
			}
			continue
		}
		r.Callees++
		got := map[def]string{}
		for _, d := range ds {
			// What `cchub graph callers` answers: the calls (not the
			// references) linked to the definition, and the possible ones.
			_, es, err := x.Callers(fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual()))
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				if e.Ref || e.Caller == nil {
					continue
				}
				k := def{e.Caller.Path, unquote(e.Caller.Qual())}
				if old, ok := got[k]; !ok || codegraph.Rank(e.Confidence) < codegraph.Rank(old) {
					got[k] = e.Confidence
				}
			}
		}
		w := want[c]
		r.TruthEdges += len(w)
		all2.judge(got, w, nil)
		// Import-resolved: the truth is the edges of import-resolvable
		// shapes; a graph edge the oracle has through another shape is
		// neither true nor false here.
		impW, other := splitShapes(w)
		imp.judge(got, impW, other)
		for k, sh := range w {
			ss := byShape[sh]
			if ss == nil {
				ss = &shapeScore{Shape: sh}
				byShape[sh] = ss
			}
			ss.Edges++
			ev, ok := got[k]
			switch {
			case !ok:
				ss.Missed++
				if verbose {
					fmt.Fprintf(os.Stderr, "%s: missed %s -> %s (%s)\n", p.Name, k, c, sh)
				}
			case codegraph.Rank(ev) <= codegraph.Rank(codegraph.Imported):
				ss.Resolved++
			default:
				ss.Weak++
				if verbose && importShapes[sh] {
					fmt.Fprintf(os.Stderr, "%s: by name only: %s -> %s (%s, %s)\n", p.Name, k, c, sh, ev)
				}
			}
		}
		if verbose {
			for k, ev := range got {
				if _, ok := w[k]; !ok && codegraph.Rank(ev) <= codegraph.Rank(codegraph.NameOnly) {
					fmt.Fprintf(os.Stderr, "%s: not a caller: %s -> %s (%s)\n", p.Name, k, c, ev)
				}
			}
		}
	}
	if verbose {
		for c, ss := range unmapped {
			for _, s := range ss {
				fmt.Fprintf(os.Stderr, "%s: caller not in the graph: %s:%d %v -> %s\n", p.Name, s.File, s.Line, s.Callers, c)
			}
		}
	}
	r.Thresholds = all2.finish()
	r.ImportResolved = imp.finish()
	for _, ss := range byShape {
		r.Shapes = append(r.Shapes, *ss)
	}
	sort.Slice(r.Shapes, func(i, j int) bool { return r.Shapes[i].Edges > r.Shapes[j].Edges })
	if budget > 0 {
		if r.Confirm, err = confirmed(ctx, dir, x, defs, callees, want, budget, verbose); err != nil {
			return nil, fmt.Errorf("confirmation: %w", err)
		}
	}
	return r, nil
}

// unquote writes a member named by a string literal ("~validate") as
// the checker names it (~validate).
func unquote(qual string) string {
	for _, q := range []string{`"`, "'"} {
		if t, m, ok := strings.Cut(qual, "."+q); ok && strings.HasSuffix(m, q) {
			return t + "." + strings.TrimSuffix(m, q)
		}
	}
	return qual
}
