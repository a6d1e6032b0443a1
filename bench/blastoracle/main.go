// Command blastoracle measures the code graph's direct callers (a blast
// radius of depth 1) against a precise Go call graph, per evidence class
// (issue 24). It is a benchmark, run by `make bench`; it asserts nothing.
//
// The oracle is golang.org/x/tools: every package of a real module (its
// tests included) loaded by go/packages, built into SSA, and its calls
// resolved by VTA (static calls, and dynamic ones through interfaces and
// function values to what can flow there) and, as a looser second, CHA
// (every method of every type that implements the interface). Calls from
// or to outside the module are left out; a call in a func literal is its
// enclosing function's, as the graph counts it. Functions are matched to
// the graph's definitions by file and the line of their func keyword.
//
// For every function and method the oracle knows, the graph's callers at
// each evidence threshold (exact; with import; with name-only; with
// possible) are judged: precision and recall of the calling definitions.
// The calls the graph misses are counted by shape (the called expression
// with its names abstracted) for whoever improves resolution.
//
//	go run ./bench/blastoracle [-corpus cobra,go-git] [-json] [-v]
//	go run ./bench/blastoracle -confirm        # also with the hub's Confirmer (gopls)
//	go run ./bench/blastoracle -timing         # confirmation time on GOROOT/src
//
// The corpora are copied from the module cache (downloaded through the
// module proxy when missing) into a temporary directory.
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
	"cchub/trust"
)

// corpora are the modules measured, pinned; sanity is a definition
// whose callers are printed in full (issue 24's example).
var corpora = []struct {
	Name, Module, Sanity string
}{
	{"cobra", "github.com/spf13/cobra@v1.10.2", "command.go:Command.ExecuteC"},
	{"go-git", "github.com/go-git/go-git/v5@v5.19.3", "repository.go:Repository.Config"},
}

// report is one corpus's figures.
type report struct {
	Corpus    string `json:"corpus"`
	Module    string `json:"module"`
	Packages  int    `json:"packages"`  // go/packages' packages, test variants included
	IllTyped  int    `json:"ill_typed"` // left out: they did not type-check
	Files     int    `json:"files"`     // Go files the build compiled
	Functions int    `json:"functions"` // functions and methods the oracle knows
	InGraph   int    `json:"in_graph"`  // of them, found among the graph's definitions
	Sample    int    `json:"sample"`    // callees judged
	// The oracle's caller edges into the sample (VTA, CHA), and those
	// whose caller the graph has no definition of (counted as missed).
	TruthEdges    int `json:"truth_edges"`
	TruthEdgesCHA int `json:"truth_edges_cha"`
	Unmapped      int `json:"unmapped_callers"`
	// Callers the graph gives in files the build does not compile
	// (another platform's): not judged.
	Unjudged int `json:"unjudged"`

	Classes      []classScore     `json:"classes"`        // each evidence class alone, against VTA
	ClassesCHA   []classScore     `json:"classes_cha"`    // … against CHA
	Thresholds   []thresholdScore `json:"thresholds"`     // cumulative, against VTA
	ThresholdCHA []thresholdScore `json:"thresholds_cha"` // … against CHA

	// Missed: the oracle's calls the graph has no edge for, by shape;
	// Weak: those it has only as name-only or possible.
	Missed []shapeCount `json:"missed_shapes"`
	Weak   []shapeCount `json:"weak_shapes"`

	Sanity *sanity `json:"sanity,omitempty"`

	Confirm *confirmReport `json:"confirm,omitempty"`

	AnalyseS float64  `json:"analyse_s"`
	IndexS   float64  `json:"index_s"`
	JudgeS   float64  `json:"judge_s"`
	Errors   []string `json:"errors,omitempty"`
}

// sanity is one definition's callers in full.
type sanity struct {
	Def       string         `json:"def"`
	Graph     map[string]int `json:"graph"` // callers by evidence
	GraphAll  int            `json:"graph_all"`
	VTA       int            `json:"vta"`
	VTASites  int            `json:"vta_sites"` // the call sites of those callers
	CHA       int            `json:"cha"`
	TP        int            `json:"tp"` // graph callers (any class) the oracle (VTA) has
	FalsePos  []string       `json:"false_positives,omitempty"`
	FalseNegs []string       `json:"false_negatives,omitempty"`
}

// confirmReport is the sample whose radius has name-only or possible
// edges, judged without and with the hub's confirmation.
type confirmReport struct {
	Callees    int              `json:"callees"`
	Asked      int              `json:"asked"`
	Refuted    int              `json:"refuted"`
	Notes      []string         `json:"notes,omitempty"`
	Before     []thresholdScore `json:"before"`
	After      []thresholdScore `json:"after"`
	Classes    []classScore     `json:"classes"`
	P50Ms      float64          `json:"p50_ms"`
	FirstMs    float64          `json:"first_ms"`
	TotalS     float64          `json:"total_s"`
	BudgetSecs float64          `json:"budget_s"`
	// ConfirmedFalse are confirmed edges the oracle does not have, and
	// RefutedTrue refuted ones it has: callee <- caller at the call.
	ConfirmedFalse []string `json:"confirmed_not_callers,omitempty"`
	RefutedTrue    []string `json:"refuted_callers,omitempty"`
}

func main() {
	names := flag.String("corpus", "cobra,go-git", "corpora to run, comma-separated: cobra, go-git")
	asJSON := flag.Bool("json", false, "print the reports as JSON instead of tables")
	verbose := flag.Bool("v", false, "print progress and every false positive and negative of the sanity definition to stderr")
	sample := flag.Int("sample", 0, "judge at most this many callees per corpus, evenly spread (0: every one)")
	confirm := flag.Bool("confirm", false, "also judge callers confirmed by the hub's Confirmer (gopls must be on PATH)")
	confirmMax := flag.Int("confirm-max", 300, "with -confirm: at most this many callees with name-only or possible callers")
	budget := flag.Duration("budget", 20*time.Second, "with -confirm and -timing: the Confirmer's budget per blast")
	timing := flag.Bool("timing", false, "time confirmation on GOROOT/src instead: blasts with about 50 name-only or possible edges, the cold first and warm p50")
	timingN := flag.Int("timing-n", 11, "with -timing: how many blasts")
	keep := flag.Bool("keep", false, "keep the temporary copies (their path is printed)")
	flag.Parse()

	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "blastoracle-")
	if err != nil {
		fail(err)
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "blastoracle: copies kept in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// The hub's user files (trust) go to a directory of the run's own.
	if *confirm || *timing {
		os.Setenv(trust.EnvDir, filepath.Join(tmp, "config"))
	}
	if *timing {
		t, err := runTiming(ctx, tmp, *budget, *timingN, *verbose)
		if err != nil {
			fail(err)
		}
		if *asJSON {
			printJSON(t)
		} else {
			t.print()
		}
		return
	}
	var reports []*report
	for _, n := range strings.Split(*names, ",") {
		found := false
		for _, c := range corpora {
			if c.Name != strings.TrimSpace(n) {
				continue
			}
			found = true
			r, err := runCorpus(ctx, tmp, c.Name, c.Module, c.Sanity, opts{sample: *sample, confirm: *confirm, confirmMax: *confirmMax, budget: *budget, verbose: *verbose})
			if err != nil {
				fail(fmt.Errorf("%s: %w", c.Name, err))
			}
			reports = append(reports, r)
			if !*asJSON {
				r.print(*verbose)
			}
		}
		if !found {
			fail(fmt.Errorf("no corpus %q: give cobra or go-git", n))
		}
	}
	if *asJSON {
		printJSON(map[string]any{"version": 1, "corpora": reports})
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "blastoracle: %v\n", err)
	os.Exit(1)
}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

type opts struct {
	sample, confirmMax int
	confirm, verbose   bool
	budget             time.Duration
}

// fetchModule copies module (path@version) from the module cache into
// dir, writable, and downloads its dependencies.
func fetchModule(ctx context.Context, module, dir string) error {
	out, err := run(ctx, os.TempDir(), "go", "mod", "download", "-json", module)
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); err != nil || jerr != nil || m.Dir == "" {
		return fmt.Errorf("go mod download %s: %v %s%s: the benchmark needs the Go module proxy or a module cache that has it", module, err, m.Error, out)
	}
	if err := corpus.CopyTree(m.Dir, dir, corpus.Copy{Old: true}); err != nil {
		return err
	}
	if out, err := run(ctx, dir, "go", "mod", "download"); err != nil {
		return fmt.Errorf("go mod download in the copy of %s: %v %s", module, err, out)
	}
	return nil
}

func run(ctx context.Context, dir string, name string, args ...string) ([]byte, error) {
	var out strings.Builder
	cmd := proc.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	p, err := cmd.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", proc.CommandLine(name, args), err)
	}
	err = p.Wait()
	return []byte(out.String()), err
}

func runCorpus(ctx context.Context, tmp, name, module, sanityName string, o opts) (*report, error) {
	dir := filepath.Join(tmp, name)
	logf := func(format string, a ...any) {
		if o.verbose {
			fmt.Fprintf(os.Stderr, name+": "+format+"\n", a...)
		}
	}
	logf("copying %s", module)
	if err := fetchModule(ctx, module, dir); err != nil {
		return nil, err
	}
	r := &report{Corpus: name, Module: module}
	t0 := time.Now()
	logf("analysing (go/packages, SSA, VTA, CHA)")
	or, err := analyse(dir)
	if err != nil {
		return nil, err
	}
	r.AnalyseS = time.Since(t0).Seconds()
	r.Packages, r.IllTyped, r.Errors = or.pkgs, len(or.errs), or.errs
	r.Files = len(or.vta.files)
	logf("indexing")
	t0 = time.Now()
	g, err := buildGraph(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer g.close()
	r.IndexS = time.Since(t0).Seconds()

	// The callees: every function the oracle knows that the graph has.
	var callees []decl
	for d := range or.vta.funcs {
		r.Functions++
		if _, ok := g.defs[d]; ok {
			r.InGraph++
			callees = append(callees, d)
		} else {
			logf("not in the graph: %s %s", d, or.vta.funcs[d])
		}
	}
	sort.Slice(callees, func(i, j int) bool {
		if callees[i].Path != callees[j].Path {
			return callees[i].Path < callees[j].Path
		}
		return callees[i].Line < callees[j].Line
	})
	if o.sample > 0 && len(callees) > o.sample {
		var picked []decl
		for i := 0; i < o.sample; i++ {
			picked = append(picked, callees[i*len(callees)/o.sample])
		}
		callees = picked
	}
	r.Sample = len(callees)

	t0 = time.Now()
	sv, sc := newScore(), newScore()
	missed, weak := shapes{}, shapes{}
	var withWeak []decl // callees with name-only or possible callers
	for _, d := range callees {
		got, _, err := g.callers(ctx, g.defs[d], nil)
		if err != nil {
			return nil, err
		}
		r.Unjudged += prune(got, or.vta.files)
		want, wantCHA := or.vta.callers[d], or.cha.callers[d]
		r.TruthEdges += len(want)
		r.TruthEdgesCHA += len(wantCHA)
		for c := range want {
			if _, ok := g.defs[c]; !ok {
				r.Unmapped++
			}
		}
		m := sv.judge(got, want)
		sc.judge(got, wantCHA)
		for _, c := range m[len(m)-1] {
			missed.add(want[c])
		}
		for _, c := range m[1] {
			if _, found := got[c]; found {
				weak.add(want[c])
			}
		}
		for _, ev := range got {
			if ev == codegraph.NameOnly || ev == codegraph.Possible {
				withWeak = append(withWeak, d)
				break
			}
		}
	}
	r.Classes, r.Thresholds = sv.finish()
	r.ClassesCHA, r.ThresholdCHA = sc.finish()
	r.Missed, r.Weak = missed.top(20), weak.top(20)
	r.JudgeS = time.Since(t0).Seconds()

	if s, err := sanityOf(ctx, g, or, sanityName); err == nil {
		r.Sanity = s
	} else {
		r.Errors = append(r.Errors, "sanity: "+err.Error())
	}
	if o.confirm {
		if len(withWeak) > o.confirmMax {
			var picked []decl
			for i := 0; i < o.confirmMax; i++ {
				picked = append(picked, withWeak[i*len(withWeak)/o.confirmMax])
			}
			withWeak = picked
		}
		logf("confirming the radius of %d callees", len(withWeak))
		cr, err := runConfirm(ctx, dir, g, or, withWeak, o.budget)
		if err != nil {
			return nil, err
		}
		r.Confirm = cr
	}
	return r, nil
}

// prune drops the callers in files the build did not compile, and says
// how many.
func prune(got map[decl]string, files map[string]bool) int {
	n := 0
	for c := range got {
		if !files[c.Path] {
			delete(got, c)
			n++
		}
	}
	return n
}

// sanityOf is the callers of the definition name (path:Type.Name).
func sanityOf(ctx context.Context, g *graph, or *oracles, name string) (*sanity, error) {
	path, qual, _ := strings.Cut(name, ":")
	for d, q := range or.vta.funcs {
		if d.Path != path || q != qual {
			continue
		}
		def, ok := g.defs[d]
		if !ok {
			return nil, fmt.Errorf("%s is not in the graph", name)
		}
		got, _, err := g.callers(ctx, def, nil)
		if err != nil {
			return nil, err
		}
		prune(got, or.vta.files)
		want := or.vta.callers[d]
		s := &sanity{Def: name, Graph: map[string]int{}, GraphAll: len(got), VTA: len(want), VTASites: len(or.vta.sites[d]), CHA: len(or.cha.callers[d])}
		for c, ev := range got {
			s.Graph[ev]++
			if _, ok := want[c]; ok {
				s.TP++
			} else {
				s.FalsePos = append(s.FalsePos, fmt.Sprintf("%s %s (%s)", c, or.vta.funcs[c], ev))
			}
		}
		for c, st := range want {
			if _, ok := got[c]; !ok {
				s.FalseNegs = append(s.FalseNegs, fmt.Sprintf("%s %s", st.Pos, st.Text))
			}
		}
		sort.Strings(s.FalsePos)
		sort.Strings(s.FalseNegs)
		return s, nil
	}
	return nil, fmt.Errorf("the oracle has no %s", name)
}

// runConfirm judges callees' callers again with the hub's confirmation.
func runConfirm(ctx context.Context, dir string, g *graph, or *oracles, callees []decl, budget time.Duration) (*confirmReport, error) {
	confirm, closeHub, err := openConfirmer(dir, budget)
	if err != nil {
		return nil, err
	}
	defer closeHub()
	cr := &confirmReport{Callees: len(callees), BudgetSecs: budget.Seconds()}
	before, after := newScore(), newScore()
	notes := map[string]bool{}
	var times []time.Duration
	t0 := time.Now()
	for _, d := range callees {
		want := or.vta.callers[d]
		got, _, err := g.callers(ctx, g.defs[d], nil)
		if err != nil {
			return nil, err
		}
		prune(got, or.vta.files)
		before.judge(got, want)
		s := time.Now()
		got, a, err := g.callers(ctx, g.defs[d], confirm)
		if err != nil {
			return nil, err
		}
		times = append(times, time.Since(s))
		prune(got, or.vta.files)
		after.judge(got, want)
		for _, r := range a.Reached {
			c := decl{r.Def.Path, r.Def.Start}
			if _, ok := want[c]; !ok && r.Confidence == codegraph.Confirmed && got[c] != "" && len(cr.ConfirmedFalse) < 30 {
				cr.ConfirmedFalse = append(cr.ConfirmedFalse, fmt.Sprintf("%s <- %s at %s", or.vta.funcs[d], r.Def.Qual(), r.Call))
			}
		}
		for c, st := range want {
			if _, ok := got[c]; !ok && len(cr.RefutedTrue) < 30 {
				cr.RefutedTrue = append(cr.RefutedTrue, fmt.Sprintf("%s <- %s at %s %s", or.vta.funcs[d], or.vta.funcs[c], st.Pos, st.Text))
			}
		}
		cr.Asked += a.Asked
		cr.Refuted += a.Refuted
		if a.Unconfirmed != "" && !notes[a.Unconfirmed] && len(notes) < 5 {
			notes[a.Unconfirmed] = true
			cr.Notes = append(cr.Notes, a.Unconfirmed)
		}
	}
	cr.TotalS = time.Since(t0).Seconds()
	_, cr.Before = before.finish()
	cr.Classes, cr.After = after.finish()
	if len(times) > 0 {
		cr.FirstMs = ms(times[0])
		cr.P50Ms = ms(p50(times[1:]))
	}
	return cr, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func (r *report) print(verbose bool) {
	fmt.Printf("\n== %s (%s)\n", r.Corpus, r.Module)
	fmt.Printf("%d packages (%d ill-typed, left out), %d files; %d functions known to the oracle, %d in the graph; %d callees judged\n",
		r.Packages, r.IllTyped, r.Files, r.Functions, r.InGraph, r.Sample)
	fmt.Printf("oracle caller edges: VTA %d, CHA %d (%d VTA callers the graph has no definition of); %d graph callers in files not compiled here, not judged\n",
		r.TruthEdges, r.TruthEdgesCHA, r.Unmapped, r.Unjudged)
	fmt.Printf("analysed in %.1fs, indexed in %.1fs, judged in %.1fs\n\n", r.AnalyseS, r.IndexS, r.JudgeS)
	fmt.Printf("%-12s %7s %10s %10s\n", "evidence", "edges", "prec VTA", "prec CHA")
	cha := map[string]classScore{}
	for _, c := range r.ClassesCHA {
		cha[c.Class] = c
	}
	for _, c := range r.Classes {
		fmt.Printf("%-12s %7d %10.3f %10.3f\n", c.Class, c.Edges, c.Precision, cha[c.Class].Precision)
	}
	fmt.Println()
	printThresholds(r.Thresholds, r.ThresholdCHA)
	if s := r.Sanity; s != nil {
		fmt.Printf("\n%s: the graph gives %d callers %v, %d of them callers per VTA; VTA has %d (at %d call sites), CHA %d\n", s.Def, s.GraphAll, s.Graph, s.TP, s.VTA, s.VTASites, s.CHA)
	}
	if s := r.Sanity; s != nil && verbose {
		for _, f := range s.FalsePos {
			fmt.Fprintf(os.Stderr, "%s: not a caller per VTA: %s\n", s.Def, f)
		}
		for _, f := range s.FalseNegs {
			fmt.Fprintf(os.Stderr, "%s: missed: %s\n", s.Def, f)
		}
	}
	printShapes("missed calls (no edge at all), by shape", r.Missed)
	printShapes("calls found only as name-only or possible, by shape", r.Weak)
	if c := r.Confirm; c != nil {
		fmt.Printf("\nwith confirmation: %d callees with name-only or possible callers; %d edges asked, %d refuted; first blast %.0f ms, p50 %.0f ms after (budget %.0fs), %.1fs in all\n",
			c.Callees, c.Asked, c.Refuted, c.FirstMs, c.P50Ms, c.BudgetSecs, c.TotalS)
		for _, n := range c.Notes {
			fmt.Printf("  unconfirmed: %s\n", n)
		}
		fmt.Println("before:")
		printThresholds(c.Before, nil)
		fmt.Println("after:")
		printThresholds(c.After, nil)
		for _, e := range c.ConfirmedFalse {
			fmt.Printf("  confirmed, not a caller per VTA: %s\n", e)
		}
		for _, e := range c.RefutedTrue {
			fmt.Printf("  a caller per VTA, missing after confirmation: %s\n", e)
		}
	}
	for i, e := range r.Errors {
		if i == 5 {
			fmt.Printf("  and %d more\n", len(r.Errors)-5)
			break
		}
		fmt.Printf("  note: %s\n", e)
	}
}

func printThresholds(ts, cha []thresholdScore) {
	fmt.Printf("%-12s %9s %10s %8s", "threshold", "predicted", "precision", "recall")
	if cha != nil {
		fmt.Printf(" %10s %8s", "prec CHA", "rec CHA")
	}
	fmt.Println()
	for i, t := range ts {
		fmt.Printf("%-12s %9d %10.3f %8.3f", t.Threshold, t.Predicted, t.Precision, t.Recall)
		if cha != nil {
			fmt.Printf(" %10.3f %8.3f", cha[i].Precision, cha[i].Recall)
		}
		fmt.Println()
	}
}

func printShapes(title string, sh []shapeCount) {
	if len(sh) == 0 {
		return
	}
	fmt.Printf("\n%s (call sites, edges):\n", title)
	for _, s := range sh {
		kind := s.Kind
		if s.Dynamic && kind != "interface method" && kind != "func value" && kind != "func field" {
			kind += ", dynamic"
		}
		if s.Recv != "" {
			kind += " on " + s.Recv
		}
		fmt.Printf("%6d %6d  %-16s %-40s e.g. %s\n", s.Count, s.Edges, s.Shape, kind, strings.Join(s.Examples, "; "))
	}
}
