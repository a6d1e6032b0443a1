package hub

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"cchub/codegraph"
)

// TestConfirmCorpusTiming measures the Confirmer on 50 name-only edges of
// a real Go module, CCHUB_CONFIRM_CORPUS (for GOROOT's own src, run with
// GOROOT set to a copy of it, since cchub writes its state there): one
// run that starts gopls and warms it, then five timed ones, logged (run
// with -v). It asserts only that gopls answered.
func TestConfirmCorpusTiming(t *testing.T) {
	dir := os.Getenv("CCHUB_CONFIRM_CORPUS")
	if dir == "" {
		t.Skip("set CCHUB_CONFIRM_CORPUS to a Go module to measure confirmation on")
	}
	requireGopls(t)
	h := newTestHub(t, dir)
	ctx := context.Background()
	began := time.Now()
	if _, err := h.Index(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed in %v", time.Since(began).Round(time.Millisecond))
	x := h.codeGraph(ctx)
	defs, err := x.Symbols("*")
	if err != nil {
		t.Fatal(err)
	}
	// Methods from across the module, not the first files only.
	var methods []codegraph.Def
	for _, d := range defs {
		if d.Language == "go" && d.Kind == "method" {
			methods = append(methods, d)
		}
	}
	var edges []codegraph.Edge
	step := max(len(methods)/400, 1)
	for i := 0; i < len(methods) && len(edges) < 50; i += step {
		d := methods[i]
		_, es, err := x.Callers(d.Path + ":" + d.Qual())
		if err != nil {
			continue
		}
		n := 0
		for _, e := range es {
			if e.Confidence == codegraph.NameOnly && n < 2 {
				edges, n = append(edges, e), n+1
			}
		}
	}
	edges = edges[:min(len(edges), 50)]
	t.Logf("%d name-only edges in %d definitions", len(edges), len(defs))

	began = time.Now()
	vs, note := h.Confirmer(10*time.Minute)(ctx, edges)
	t.Logf("cold (gopls starting): %v; %v; note: %s", time.Since(began).Round(time.Millisecond), tally(vs), note)
	answered := 0
	for i, v := range vs {
		if v != "" {
			answered++
		}
		if v == codegraph.Refuted {
			e := edges[i]
			t.Logf("refuted: %s:%d:%d %s to %s:%d %s", e.Path, e.Line, e.Col, e.Name, e.Callee.Path, e.Callee.Start, e.Callee.Qual())
		}
	}
	if answered == 0 {
		t.Fatalf("gopls answered none of %d edges: %s", len(edges), note)
	}
	var took []time.Duration
	for range 5 {
		began = time.Now()
		vs, note = h.Confirmer(0)(ctx, edges)
		took = append(took, time.Since(began))
		t.Logf("warm: %v; %v; note: %s", took[len(took)-1].Round(time.Millisecond), tally(vs), note)
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	t.Logf("warm p50 for %d edges: %v", len(edges), took[len(took)/2].Round(time.Millisecond))
}

func tally(vs []string) map[string]int {
	out := map[string]int{}
	for _, v := range vs {
		if v == "" {
			v = "unanswered"
		}
		out[v]++
	}
	return out
}
