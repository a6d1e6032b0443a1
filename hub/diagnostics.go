package hub

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"cchub/ledger"
	"cchub/lspmux"
)

// DiagnosticsResult is the current diagnostics of some files.
type DiagnosticsResult = lspmux.Current

// Diagnostics is every current diagnostic of the files at paths (all
// files the servers know of, with none given), not only new ones.
// The run (nil for a one-off call) hears once per conversation that the
// workspace's configuration was skipped; other notes describe the moment
// and are said each time.
func (h *Hub) Diagnostics(ctx context.Context, r *Run, paths []string) (*DiagnosticsResult, error) {
	return h.DiagnosticsWith(ctx, r, DiagnosticsOptions{Paths: paths})
}

// DiagnosticsOptions narrows a diagnostics question.
type DiagnosticsOptions struct {
	Paths []string // none: every file the servers know of
	// Command: the question is a one-shot command's, with no later
	// answer (cchub diag, also when a shared hub runs it): for the whole
	// workspace it waits for the servers to load and diagnose it, as
	// their checkers would, as a one-shot hub always does.
	Command bool
	// Severity keeps that severity and worse: "warning" is errors and
	// warnings. "" keeps all.
	Severity string
	// NewOnly keeps the diagnostics whose key (file, severity, code,
	// message) the run was not told yet, by an edit's news or an earlier
	// NewOnly answer; they are then told. Without a run, all are new.
	NewOnly bool
	// MaxBytes bounds the result's Text (0: no bound).
	MaxBytes int
}

// Severities are the severities a diagnostics question may name, most
// severe first.
var Severities = []string{ledger.Error, ledger.Warning, ledger.Info, ledger.Hint}

// DiagnosticsWith is Diagnostics narrowed by o.
func (h *Hub) DiagnosticsWith(ctx context.Context, r *Run, o DiagnosticsOptions) (*DiagnosticsResult, error) {
	sev := strings.ToLower(strings.TrimSpace(o.Severity))
	if sev == "information" {
		sev = ledger.Info
	}
	if sev != "" && !slices.Contains(Severities, sev) {
		return nil, fmt.Errorf("severity %q: use error, warning, info or hint; it keeps that severity and worse (warning: errors and warnings), e.g. diagnostics severity=error", o.Severity)
	}
	res, err := h.diagnostics(ctx, r, o.Paths, o.Command)
	if err != nil {
		return nil, err
	}
	res.MaxBytes = o.MaxBytes
	res.KeepSeverity(sev)
	if o.NewOnly && r != nil {
		res.NewOnly = true
		h.onlyNew(ctx, r, res)
	}
	return res, nil
}

// onlyNew keeps in res the diagnostics whose key r was not told, and
// records them as told. All current diagnostics of the files go to the
// ledger, so what r was told and is gone is forgotten (news again if it
// returns).
func (h *Hub) onlyNew(ctx context.Context, r *Run, res *DiagnosticsResult) {
	current := map[string][]lspmux.Diagnostic{}
	for p, ds := range res.All {
		current[p] = ds
	}
	keep := map[ledger.Key]bool{}
	for _, d := range res.Diagnostics {
		keep[keyOf(d)] = true
	}
	led, id, err := h.ledgerFor(ctx, r)
	var news ledger.News
	if err == nil {
		news, err = led.ReportCaused(ctx, id, toLedger(current), keep)
	}
	if err != nil {
		res.Notes = append(res.Notes, "what this conversation was told could not be read ("+err.Error()+"); every diagnostic is listed")
		return
	}
	fresh := map[ledger.Key]bool{}
	for _, f := range news.Files {
		for _, n := range f.New {
			fresh[n.Key] = true
		}
	}
	kept := res.Diagnostics[:0:0]
	for _, d := range res.Diagnostics {
		if fresh[keyOf(d)] {
			kept = append(kept, d)
		} else {
			res.Told++
		}
	}
	res.Diagnostics = kept
}

// diagnostics is every current diagnostic of the files at paths.
func (h *Hub) diagnostics(ctx context.Context, r *Run, paths []string, command bool) (*DiagnosticsResult, error) {
	mux, err := h.servers()
	if err != nil {
		return nil, err
	}
	h.flushDisk(ctx) // what other processes changed reaches the servers first
	var rels []string
	for _, p := range paths {
		_, rel, err := h.Root.Resolve(p)
		if err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	var rep *lspmux.Report
	switch {
	case len(rels) == 0 && (h.oneShot || command):
		// A command has no later answer: it waits for the servers to
		// load and diagnose the workspace, as their checkers would.
		rep, err = mux.WorkspaceWithin(ctx, lateWaitOneShot)
	case len(rels) == 0:
		rep, err = mux.Workspace(ctx)
	default:
		rep, err = mux.Diagnostics(ctx, rels)
	}
	if err != nil {
		return nil, err
	}
	res := &DiagnosticsResult{}
	for _, n := range rep.Notes {
		if n != mux.ConfigNote() || !r.told(n) {
			res.Notes = append(res.Notes, n)
		}
	}
	asked := map[string]bool{}
	for _, rel := range rels {
		asked[rel] = true
	}
	for rel, ds := range rep.Files {
		if len(rels) > 0 && !asked[rel] {
			delete(rep.Files, rel) // only the files asked about
			continue
		}
		res.Diagnostics = append(res.Diagnostics, ds...)
	}
	res.All = rep.Files
	sort.SliceStable(res.Diagnostics, func(i, j int) bool {
		a, b := res.Diagnostics[i], res.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	res.Checked = len(rep.Files)
	res.Servers = rep.Servers
	// What could not be checked: what the report says, and each file
	// asked about that a server owns but that the report leaves out
	// (its server is missing, failed to start or is still starting).
	unchecked := map[string]bool{}
	for _, u := range rep.Unchecked {
		if len(rels) == 0 || asked[u] {
			unchecked[u] = true
		}
	}
	for _, rel := range rels {
		if _, ok := rep.Files[rel]; !ok && mux.Serves(rel) {
			unchecked[rel] = true
		}
	}
	for u := range unchecked {
		res.Unchecked = append(res.Unchecked, u)
	}
	sort.Strings(res.Unchecked)
	return res, nil
}
