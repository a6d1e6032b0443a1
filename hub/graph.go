package hub

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"cchub/codegraph"
)

// GraphIn is one question for the code graph.
type GraphIn struct {
	Op            string   `json:"op" jsonschema:"symbols, callers, callees or blast"`
	Name          string   `json:"name,omitempty" jsonschema:"symbols: a name or glob (Store.*, *Handler); callers/callees/blast: a definition as Name, Type.Name or path:Name"`
	Names         []string `json:"names,omitempty" jsonschema:"blast: several definitions at once"`
	Depth         int      `json:"depth,omitempty" jsonschema:"blast: how many calls away (default 3)"`
	MinConfidence string   `json:"min_confidence,omitempty" jsonschema:"blast: exact, import or name-only (default: all)"`
}

// codeGraph is the hub's code graph, made on first need and kept in the
// workspace's store, so that the next process reads only what changed. A
// workspace whose store cannot be opened (read-only, say) is indexed in
// memory.
func (h *Hub) codeGraph(ctx context.Context) *codegraph.Index {
	h.graphMu.Lock()
	defer h.graphMu.Unlock()
	if h.graph == nil {
		h.graph = codegraph.NewIndex(h.Root, h.Parses)
		if db, err := h.state(ctx); err == nil {
			h.graph.Persist(db)
		}
	}
	return h.graph
}

// Index brings the code graph up to date (only files whose content
// changed are read again) and says what it did; progress, if not nil, is
// told how many files are read of how many.
func (h *Hub) Index(ctx context.Context, progress func(done, total int)) (codegraph.Stats, error) {
	return h.codeGraph(ctx).UpdateProgress(ctx, progress)
}

// Graph answers one question of the code graph, as text for a model.
func (h *Hub) Graph(ctx context.Context, in GraphIn) (string, error) {
	x := h.codeGraph(ctx)
	if _, err := x.Update(ctx); err != nil {
		return "", err
	}
	var b strings.Builder
	switch strings.TrimSpace(in.Op) {
	case "symbols":
		if in.Name == "" {
			return "", errors.New("symbols needs name: a name or a glob (e.g. *Store*)")
		}
		ds, err := x.Symbols(in.Name)
		if err != nil {
			return "", err
		}
		if len(ds) == 0 {
			return fmt.Sprintf("no definition matches %q; try a glob such as *%s*\n", in.Name, in.Name), nil
		}
		fmt.Fprintf(&b, "%d definition(s) match %q:\n", len(ds), in.Name)
		for _, d := range ds {
			fmt.Fprintf(&b, "%s:%d-%d\t%s %s\n", d.Path, d.Start, d.End, d.Kind, d.Qual())
		}
	case "callers", "callees":
		if in.Name == "" {
			return "", fmt.Errorf("%s needs name: a definition as Name, Type.Name or path:Name", in.Op)
		}
		var d *codegraph.Def
		var es []codegraph.Edge
		var err error
		if in.Op == "callers" {
			d, es, err = x.Callers(in.Name)
		} else {
			d, es, err = x.Callees(in.Name)
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s of %s (%s:%d): %d\n", in.Op, d.Qual(), d.Path, d.Start, len(es))
		for _, e := range es {
			other := "top level"
			if in.Op == "callers" && e.Caller != nil {
				other = e.Caller.Qual()
			}
			if in.Op == "callees" {
				other = e.Name + " (unresolved)"
				if e.Callee != nil {
					other = fmt.Sprintf("%s (%s:%d)", e.Callee.Qual(), e.Callee.Path, e.Callee.Start)
				}
			}
			conf := ""
			if e.Confidence != "" {
				conf = " [" + e.Confidence + "]"
			}
			fmt.Fprintf(&b, "%s:%d:%d\t%s%s\n", e.Path, e.Line, e.Col, other, conf)
		}
	case "blast":
		names := in.Names
		if in.Name != "" {
			names = append([]string{in.Name}, names...)
		}
		if len(names) == 0 {
			return "", errors.New("blast needs name (or names): the definitions that change")
		}
		starts, reached, err := x.Blast(names, in.Depth, in.MinConfidence)
		if err != nil {
			return "", err
		}
		writeBlast(&b, starts, reached)
	default:
		return "", fmt.Errorf("unknown op %q: one of symbols, callers, callees, blast", in.Op)
	}
	return b.String(), nil
}

// writeBlast lists what a change reaches, by distance, then the files and
// the tests among them.
func writeBlast(b *strings.Builder, starts []codegraph.Def, reached []codegraph.Reached) {
	var names []string
	for _, d := range starts {
		names = append(names, d.Qual())
	}
	files := map[string]bool{}
	var tests []string
	fmt.Fprintf(b, "blast radius of %s: %d definition(s)\n", strings.Join(names, ", "), len(reached))
	dist := 0
	for _, r := range reached {
		if r.Distance != dist {
			dist = r.Distance
			fmt.Fprintf(b, "distance %d:\n", dist)
		}
		fmt.Fprintf(b, "  %s:%d\t%s [%s] via %s\n", r.Def.Path, r.Def.Start, r.Def.Qual(), r.Confidence, strings.Join(r.Via, " <- "))
		files[r.Def.Path] = true
		if r.Def.Test {
			tests = append(tests, fmt.Sprintf("%s (%s)", r.Def.Qual(), r.Def.Path))
		}
	}
	if len(files) > 0 {
		var fs []string
		for f := range files {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		fmt.Fprintf(b, "files: %s\n", strings.Join(fs, ", "))
	}
	if len(tests) > 0 {
		fmt.Fprintf(b, "tests: %s\n", strings.Join(tests, ", "))
	}
}

// CodeGraph is the workspace's code graph, kept in its store, for
// commands that ask more of it than Graph's text (cchub blast, which
// brings it up to date itself).
func (h *Hub) CodeGraph(ctx context.Context) *codegraph.Index { return h.codeGraph(ctx) }
