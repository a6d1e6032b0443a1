package hub

import (
	"context"
	"fmt"
	"strings"

	"cchub/ledger"
	"cchub/lspmux"
	"cchub/store"
)

// WriteDiagnostics is what the language servers said of a change that
// this run has not been told before: new diagnostics by file, a count of
// those still present and already told, and notes (a server missing, not
// ready, crashed), each said once per run.
type WriteDiagnostics struct {
	News  ledger.News `json:"news"`
	Notes []string    `json:"notes,omitempty"`
}

// Text is the block a change's answer ends with: empty when there is
// nothing to say (no server owns the files, or nothing new and no
// note).
func (d *WriteDiagnostics) Text() string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	if len(d.News.Files) > 0 {
		b.WriteString(d.News.Text(maxNewPerFile, maxNewFiles))
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// The bounds of the diagnostics a change's answer lists.
const (
	maxNewPerFile = 10
	maxNewFiles   = 5
)

// afterWrite passes the files a change wrote (or deleted) through their
// language servers and keeps, for r, only what r has not been told.
func (h *Hub) afterWrite(ctx context.Context, r *Run, files []lspmux.File) *WriteDiagnostics {
	mux, err := h.servers()
	if err != nil {
		return r.noted(&WriteDiagnostics{Notes: []string{err.Error()}})
	}
	rep, err := mux.AfterWrite(ctx, files)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return r.noted(&WriteDiagnostics{Notes: []string{"diagnostics: " + err.Error()}})
	}
	d := &WriteDiagnostics{Notes: rep.Notes}
	if len(rep.Files) == 0 {
		return r.noted(d)
	}
	led, id, err := h.ledgerFor(ctx, r)
	if err == nil {
		d.News, err = led.Report(ctx, id, toLedger(rep.Files))
	}
	if err != nil {
		d.Notes = append(d.Notes, "diagnostics could not be sorted into new and already told ("+err.Error()+"); all current ones are listed")
		d.News = allNews(rep.Files)
	}
	return r.noted(d)
}

func toLedger(files map[string][]lspmux.Diagnostic) map[string][]ledger.Diagnostic {
	out := make(map[string][]ledger.Diagnostic, len(files))
	for p, ds := range files {
		l := make([]ledger.Diagnostic, 0, len(ds))
		for _, d := range ds {
			l = append(l, ledger.Diagnostic{
				Key:  ledger.Key{Path: d.Path, Severity: d.Severity, Code: d.Code, Message: d.Message},
				Line: d.Line, Col: d.Col, EndLine: d.EndLine, EndCol: d.EndCol, Source: d.Source,
			})
		}
		out[p] = l
	}
	return out
}

// allNews lists every diagnostic as new, for when the ledger cannot be
// asked: repeating is better than hiding.
func allNews(files map[string][]lspmux.Diagnostic) ledger.News {
	var n ledger.News
	for p, ds := range toLedger(files) {
		f := ledger.FileNews{Path: p}
		for _, d := range ds {
			f.New = append(f.New, ledger.Reported{Diagnostic: d})
		}
		if len(f.New) > 0 {
			n.Files = append(n.Files, f)
		}
	}
	return n
}

// noted drops from d the notes r has heard already, and records the
// rest as heard. It returns nil when nothing is left to say.
func (r *Run) noted(d *WriteDiagnostics) *WriteDiagnostics {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.heard == nil {
		r.heard = map[string]bool{}
	}
	kept := d.Notes[:0]
	for _, n := range d.Notes {
		if !r.heard[n] {
			r.heard[n] = true
			kept = append(kept, n)
		}
	}
	d.Notes = kept
	if len(d.Notes) == 0 && len(d.News.Files) == 0 {
		return nil
	}
	return d
}

// ledgerFor is the ledger and r's id in the store, made on first need: an
// MCP session's run is anonymous, a CLI run named.
func (h *Hub) ledgerFor(ctx context.Context, r *Run) (*ledger.Ledger, store.RunID, error) {
	db, err := h.state(ctx)
	if err != nil {
		return nil, 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id == 0 {
		if r.Name != "" {
			r.id, err = db.Run(ctx, r.Name)
		} else {
			r.id, err = db.NewRun(ctx)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return ledger.New(db), r.id, nil
}
