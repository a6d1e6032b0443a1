package main

import (
	"fmt"

	"cchub/codegraph"
)

// report is one corpus's figures.
type report struct {
	Corpus      string `json:"corpus"`
	Package     string `json:"package"`
	Files       int    `json:"files"`        // the tsconfig's files in the project
	Sites       int    `json:"sites"`        // calls whose callee the checker resolved to a definition of the project
	Unresolved  int    `json:"unresolved"`   // calls of packages, built-ins, values of no declared function
	CheckErrors int    `json:"check_errors"` // the checker's errors on the copy (missing packages' types)
	TopLevel    int    `json:"top_level"`    // sites at a file's top level: no caller definition, not judged
	// Callees: definitions called that the graph has; NotInGraph those it
	// does not; UnmappedCallers the sites held by no definition the graph
	// has (counted as missed only where they are not).
	Callees         int `json:"callees"`
	NotInGraph      int `json:"not_in_graph"`
	NotInGraphEdges int `json:"not_in_graph_edges"` // their caller edges: not judged
	UnmappedCallers int `json:"unmapped_callers"`
	TruthEdges      int `json:"truth_edges"`

	Thresholds     []thresholdScore `json:"thresholds"`      // every edge the oracle has
	ImportResolved []thresholdScore `json:"import_resolved"` // the edges of import-resolvable shapes
	Shapes         []shapeScore     `json:"shapes"`
	Confirm        *confirmScore    `json:"confirm,omitempty"` // -confirm

	OracleS float64 `json:"oracle_s"`
	IndexS  float64 `json:"index_s"`
}

// shapeScore is the oracle's edges of one shape of call, and what the
// graph has of them: resolved (exact or import), weak (name-only or
// possible), missed.
type shapeScore struct {
	Shape    string `json:"shape"`
	Edges    int    `json:"edges"`
	Resolved int    `json:"resolved"`
	Weak     int    `json:"weak"`
	Missed   int    `json:"missed"`
}

// thresholds are the classes a caller may ask for, cumulatively.
var thresholds = []struct{ Name, Least string }{
	{"exact", codegraph.Exact},
	{"+import", codegraph.Imported},
	{"+name-only", codegraph.NameOnly},
	{"+possible", codegraph.Possible},
}

type thresholdScore struct {
	Threshold string  `json:"threshold"`
	Predicted int     `json:"predicted"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
}

type score struct{ byThr []*thresholdScore }

func newScore() *score {
	s := &score{}
	for _, t := range thresholds {
		s.byThr = append(s.byThr, &thresholdScore{Threshold: t.Name})
	}
	return s
}

// judge adds one callee: got is the graph's callers with their evidence,
// want the oracle's; a caller in skip is judged neither way.
func (s *score) judge(got map[def]string, want map[def]string, skip map[def]bool) {
	for i, t := range thresholds {
		ts := s.byThr[i]
		for c, ev := range got {
			if codegraph.Rank(ev) > codegraph.Rank(t.Least) || skip[c] {
				continue
			}
			ts.Predicted++
			if _, ok := want[c]; ok {
				ts.TP++
			} else {
				ts.FP++
			}
		}
		for c := range want {
			if ev, ok := got[c]; !ok || codegraph.Rank(ev) > codegraph.Rank(t.Least) {
				ts.FN++
			}
		}
	}
}

func (s *score) finish() []thresholdScore {
	var out []thresholdScore
	for _, ts := range s.byThr {
		ts.Precision = ratio(ts.TP, ts.Predicted)
		ts.Recall = ratio(ts.TP, ts.TP+ts.FN)
		out = append(out, *ts)
	}
	return out
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (r *report) print() {
	fmt.Printf("\n== %s (%s)\n", r.Corpus, r.Package)
	fmt.Printf("%d files; %d calls resolved by the checker to the project's definitions (%d others), %d at top level; checker errors %d\n",
		r.Files, r.Sites, r.Unresolved, r.TopLevel, r.CheckErrors)
	fmt.Printf("%d callees judged; %d called definitions not in the graph (%d caller edges to them, not judged: nested functions, object literals' arrow functions); %d caller edges judged, %d calls in no definition of the graph\n",
		r.Callees, r.NotInGraph, r.NotInGraphEdges, r.TruthEdges, r.UnmappedCallers)
	fmt.Printf("oracle %.1fs, index %.1fs\n\n", r.OracleS, r.IndexS)
	fmt.Println("all edges:")
	printThresholds(r.Thresholds)
	fmt.Println("import-resolved (f(), ns.f(), X.m(), this.m(), new X(), new X().m(), x = new X(); x.m()):")
	printThresholds(r.ImportResolved)
	fmt.Printf("%-22s %6s %9s %6s %7s\n", "shape", "edges", "resolved", "weak", "missed")
	for _, s := range r.Shapes {
		fmt.Printf("%-22s %6d %9d %6d %7d\n", s.Shape, s.Edges, s.Resolved, s.Weak, s.Missed)
	}
	if r.Confirm != nil {
		r.Confirm.print()
	}
}

func printThresholds(ts []thresholdScore) {
	fmt.Printf("  %-11s %9s %5s %5s %5s %9s %7s\n", "threshold", "predicted", "tp", "fp", "fn", "precision", "recall")
	for _, t := range ts {
		fmt.Printf("  %-11s %9d %5d %5d %5d %9.3f %7.3f\n", t.Threshold, t.Predicted, t.TP, t.FP, t.FN, t.Precision, t.Recall)
	}
}
