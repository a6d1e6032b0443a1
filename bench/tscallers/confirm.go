package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cchub/codegraph"
	"cchub/hub"
)

// confirmScore is the callers judged again as a depth-1 blast radius
// (which, unlike callers, leaves out a definition's calls of itself),
// without and with the hub's confirmation by typescript-language-server
// (`-confirm`): every name-only and possible edge asked, refuted ones
// left out, confirmed ones counted as surer than exact.
type confirmScore struct {
	Before         []thresholdScore `json:"before"`
	BeforeImport   []thresholdScore `json:"before_import_resolved"`
	Thresholds     []thresholdScore `json:"thresholds"`
	ImportResolved []thresholdScore `json:"import_resolved"`
	Asked          int              `json:"asked"`
	Refuted        int              `json:"refuted"`
	Notes          []string         `json:"notes,omitempty"` // why edges were left unanswered, a few
	TotalS         float64          `json:"total_s"`
	BudgetS        float64          `json:"budget_s"`
}

// serverPath puts the tools directory's typescript-language-server first
// on PATH, where the hub looks for it.
func serverPath(tools string) error {
	bin, err := filepath.Abs(filepath.Join(tools, "lsp", "node_modules", ".bin"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(bin, "typescript-language-server")); err != nil {
		return fmt.Errorf("-confirm needs typescript-language-server in %s: `make bench` installs it (the LSP tools)", bin)
	}
	return os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// confirmed judges the callers of callees again, each asked of x with
// the Confirmer of a hub opened on dir. want and shapes are the
// oracle's callers of each callee and which are import-resolvable.
func confirmed(ctx context.Context, dir string, x *codegraph.Index, defs map[def][]codegraph.Def, callees []def, want map[def]map[def]string, budget time.Duration, verbose bool) (*confirmScore, error) {
	h, err := hub.Open(dir, hub.Options{})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	conf := h.Confirmer(budget)
	cs := &confirmScore{BudgetS: budget.Seconds()}
	all, imp, all0, imp0 := newScore(), newScore(), newScore(), newScore()
	notes := map[string]bool{}
	t0 := time.Now()
	for _, c := range callees {
		ds, ok := defs[c]
		if !ok {
			continue
		}
		radius := func(conf codegraph.Confirmer) (map[def]string, error) {
			got := map[def]string{}
			for _, d := range ds {
				a, err := x.BlastWith(ctx, []string{fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual())}, codegraph.BlastOptions{Depth: 1, Confirm: conf, CallsOnly: true})
				if err != nil {
					return nil, err
				}
				cs.Asked += a.Asked
				cs.Refuted += a.Refuted
				if a.Unconfirmed != "" && !notes[a.Unconfirmed] && len(notes) < 5 {
					notes[a.Unconfirmed] = true
					cs.Notes = append(cs.Notes, a.Unconfirmed)
				}
				for _, r := range a.Reached {
					if r.Distance != 1 {
						continue
					}
					k := def{r.Def.Path, unquote(r.Def.Qual())}
					if old, ok := got[k]; !ok || codegraph.Rank(r.Confidence) < codegraph.Rank(old) {
						got[k] = r.Confidence
					}
				}
			}
			return got, nil
		}
		before, err := radius(nil)
		if err != nil {
			return nil, err
		}
		after, err := radius(conf)
		if err != nil {
			return nil, err
		}
		w := want[c]
		impW, other := splitShapes(w)
		all0.judge(before, w, nil)
		imp0.judge(before, impW, other)
		all.judge(after, w, nil)
		for k, ev := range after {
			if _, ok := w[k]; !ok && ev == codegraph.Confirmed && verbose {
				fmt.Fprintf(os.Stderr, "confirmed, not a caller: %s -> %s\n", k, c)
			}
		}
		imp.judge(after, impW, other)
	}
	cs.TotalS = time.Since(t0).Seconds()
	cs.Before, cs.BeforeImport = all0.finish(), imp0.finish()
	cs.Thresholds, cs.ImportResolved = all.finish(), imp.finish()
	return cs, nil
}

// splitShapes parts a callee's oracle callers into those of
// import-resolvable shapes and the others.
func splitShapes(w map[def]string) (imp map[def]string, other map[def]bool) {
	imp, other = map[def]string{}, map[def]bool{}
	for k, sh := range w {
		if importShapes[sh] {
			imp[k] = sh
		} else {
			other[k] = true
		}
	}
	return imp, other
}

func (cs *confirmScore) print() {
	fmt.Printf("\nwith confirmation by typescript-language-server (%d edges asked, %d refuted, %.1fs; budget %.0fs a callee):\n", cs.Asked, cs.Refuted, cs.TotalS, cs.BudgetS)
	fmt.Println("all edges, the depth-1 radius without confirmation:")
	printThresholds(cs.Before)
	fmt.Println("all edges, confirmed (counted as exact):")
	printThresholds(cs.Thresholds)
	fmt.Println("import-resolved, without confirmation:")
	printThresholds(cs.BeforeImport)
	fmt.Println("import-resolved, confirmed:")
	printThresholds(cs.ImportResolved)
	for _, n := range cs.Notes {
		fmt.Printf("  note: %s\n", n)
	}
}
