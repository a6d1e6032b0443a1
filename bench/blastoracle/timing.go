package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cchub/bench/corpus"
	"cchub/codegraph"
)

// timingReport is what confirmation costs on Go's own source: blasts
// whose radius has about 50 name-only or possible edges, the first (the
// language server started and loading) and the rest (warm).
type timingReport struct {
	Corpus  string        `json:"corpus"`
	IndexS  float64       `json:"index_s"`
	BudgetS float64       `json:"budget_s"`
	Blasts  []timingBlast `json:"blasts"`
	FirstMs float64       `json:"first_ms"`
	P50Ms   float64       `json:"p50_warm_ms"`
	MaxMs   float64       `json:"max_warm_ms"`
}

type timingBlast struct {
	Def        string  `json:"def"`
	Candidates int     `json:"candidates"` // name-only and possible callers before confirmation
	Asked      int     `json:"asked"`
	Refuted    int     `json:"refuted"`
	Ms         float64 `json:"ms"`
	Note       string  `json:"unconfirmed,omitempty"`
}

func runTiming(ctx context.Context, tmp string, budget time.Duration, n int, verbose bool) (*timingReport, error) {
	out, err := run(ctx, os.TempDir(), "go", "env", "GOROOT")
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %v %s", err, out)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	dir := filepath.Join(tmp, "goroot-src")
	if verbose {
		fmt.Fprintf(os.Stderr, "timing: copying %s\n", src)
	}
	if err := corpus.CopyTree(src, dir, corpus.Copy{Old: true}); err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	t0 := time.Now()
	g, err := buildGraph(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer g.close()
	tr := &timingReport{Corpus: "GOROOT/src", IndexS: time.Since(t0).Seconds(), BudgetS: budget.Seconds()}

	// Definitions whose radius (depth 1) has 40 to 60 name-only or
	// possible callers, spread over the tree.
	var defs []codegraph.Def
	for _, d := range g.defs {
		if !strings.Contains(d.Path, "testdata/") {
			defs = append(defs, d)
		}
	}
	sort.Slice(defs, func(i, j int) bool { return key(defs[i]) < key(defs[j]) })
	type pick struct {
		d codegraph.Def
		n int
	}
	var picks []pick
	for _, d := range defs {
		a, err := g.x.BlastWith(ctx, []string{key(d)}, codegraph.BlastOptions{Depth: 1})
		if err != nil {
			continue
		}
		if c := a.Counts[codegraph.NameOnly] + a.Counts[codegraph.Possible]; c >= 40 && c <= 60 {
			picks = append(picks, pick{d, c})
		}
	}
	if len(picks) == 0 {
		return nil, fmt.Errorf("no definition in %s has 40 to 60 name-only or possible callers", src)
	}
	if len(picks) > n {
		var spread []pick
		for i := range n {
			spread = append(spread, picks[i*len(picks)/n])
		}
		picks = spread
	}
	confirm, closeHub, err := openConfirmer(dir, budget)
	if err != nil {
		return nil, err
	}
	defer closeHub()
	var warm []time.Duration
	for i, p := range picks {
		if verbose {
			fmt.Fprintf(os.Stderr, "timing: blast %d/%d %s (%d candidates)\n", i+1, len(picks), key(p.d), p.n)
		}
		s := time.Now()
		a, err := g.x.BlastWith(ctx, []string{key(p.d)}, codegraph.BlastOptions{Depth: 1, Confirm: confirm})
		took := time.Since(s)
		if err != nil {
			return nil, err
		}
		tr.Blasts = append(tr.Blasts, timingBlast{Def: key(p.d), Candidates: p.n, Asked: a.Asked, Refuted: a.Refuted, Ms: ms(took), Note: a.Unconfirmed})
		if i == 0 {
			tr.FirstMs = ms(took)
		} else {
			warm = append(warm, took)
			tr.MaxMs = max(tr.MaxMs, ms(took))
		}
	}
	tr.P50Ms = ms(p50(warm))
	return tr, nil
}

func (t *timingReport) print() {
	fmt.Printf("\n== confirmation time on %s (indexed in %.1fs, budget %.0fs per blast)\n", t.Corpus, t.IndexS, t.BudgetS)
	fmt.Printf("cold first blast %.0f ms; warm p50 %.0f ms, max %.0f ms over %d blasts\n", t.FirstMs, t.P50Ms, t.MaxMs, len(t.Blasts)-1)
	for _, b := range t.Blasts {
		fmt.Printf("  %8.0f ms  %3d candidates, %3d asked, %3d refuted  %s", b.Ms, b.Candidates, b.Asked, b.Refuted, b.Def)
		if b.Note != "" {
			fmt.Printf("  (%s)", b.Note)
		}
		fmt.Println()
	}
}
