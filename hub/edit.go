package hub

import (
	"context"
	"time"

	"cchub/lspmux"
	"cchub/textedit"
	"cchub/workspace"
)

// EditOutcome is an edit's result and what the language servers said of
// it that the run had not been told.
type EditOutcome struct {
	*textedit.EditResult
	Diagnostics *WriteDiagnostics `json:"diagnostics,omitempty"`
}

func (o *EditOutcome) Text() string { return o.EditResult.Text() + o.Diagnostics.Text() }

// WriteOutcome is a write's result and its new diagnostics.
type WriteOutcome struct {
	*textedit.WriteResult
	Diagnostics *WriteDiagnostics `json:"diagnostics,omitempty"`
}

func (o *WriteOutcome) Text() string { return o.WriteResult.Text() + o.Diagnostics.Text() }

// PatchOutcome is a patch's result and its new diagnostics.
type PatchOutcome struct {
	*textedit.PatchResult
	Diagnostics *WriteDiagnostics `json:"diagnostics,omitempty"`
}

func (o *PatchOutcome) Text() string { return o.PatchResult.Text() + o.Diagnostics.Text() }

// Edit replaces one place in a file (see textedit.Apply), as r has seen it,
// and reports the diagnostics the change introduced.
func (h *Hub) Edit(ctx context.Context, path string, ch textedit.Change, r *Run) (*EditOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	defer h.writing(h.rel(path))()
	ctx = withSteps(ctx)
	defer stepsEnd(ctx, "edit")
	t0 := time.Now()
	res, err := h.files.Edit(ctx, path, ch, r.Seen)
	stepDone(ctx, "write", t0)
	if err != nil {
		return nil, err
	}
	return &EditOutcome{res, h.afterWrite(ctx, r, forServers(res.Written))}, nil
}

// Write replaces or creates a whole file, and reports the diagnostics it
// introduced.
func (h *Hub) Write(ctx context.Context, path, content string, opts textedit.WriteOptions, r *Run) (*WriteOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	defer h.writing(h.rel(path))()
	ctx = withSteps(ctx)
	defer stepsEnd(ctx, "write")
	t0 := time.Now()
	res, err := h.files.Write(ctx, path, content, opts, r.Seen)
	stepDone(ctx, "write", t0)
	if err != nil {
		return nil, err
	}
	return &WriteOutcome{res, h.afterWrite(ctx, r, forServers(res.Written))}, nil
}

// ApplyPatch applies a multi-file patch, all or nothing (through the
// journaled commit: commitPatch), and reports the diagnostics it
// introduced.
func (h *Hub) ApplyPatch(ctx context.Context, patch string, r *Run) (*PatchOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	// The files are known once the patch is verified: from its commit
	// until the servers have the change, they are the hub's own writes.
	done := func() {}
	defer func() { done() }()
	commit := func(ctx context.Context, files []textedit.PlannedFile) error {
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		done = h.writing(paths...)
		return h.commitPatch(ctx, files)
	}
	ctx = withSteps(ctx)
	defer stepsEnd(ctx, "apply_patch")
	t0 := time.Now()
	res, err := h.files.ApplyPatch(ctx, patch, r.Seen, commit)
	stepDone(ctx, "write", t0)
	if err != nil {
		return nil, err
	}
	return &PatchOutcome{res, h.afterWrite(ctx, r, forServers(res.Written))}, nil
}

// rel is path (as an agent gives it) relative to the root, or "" when it
// is not in the workspace.
func (h *Hub) rel(path string) string {
	_, rel, err := h.Root.Resolve(path)
	if err != nil {
		return ""
	}
	return rel
}

// forServers is what a change wrote, as its language servers are told
// it: a file removed is deleted; a file written carries its new content,
// and what it held before where that is text (else the servers do not
// know it). A file whose new content is not text a server reads (too
// large, binary, not UTF-8) is left out.
func forServers(written []workspace.Written) []lspmux.File {
	var files []lspmux.File
	for _, w := range written {
		f := lspmux.File{Path: w.Path, Data: w.New, Deleted: w.New == nil}
		if workspace.IsText(w.Old) {
			f.Old = w.Old
		}
		if !f.Deleted && !workspace.IsText(w.New) {
			continue
		}
		files = append(files, f)
	}
	return files
}
