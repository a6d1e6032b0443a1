package hub

import (
	"context"

	"cchub/lspmux"
	"cchub/textedit"
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
	rel := h.rel(path)
	old := h.before(rel)
	defer h.writing(rel)()
	res, err := h.files.Edit(ctx, path, ch, r.Seen)
	if err != nil {
		return nil, err
	}
	return &EditOutcome{res, h.afterWrite(ctx, r, []lspmux.File{{Path: res.Path, Data: res.Data, Old: old}})}, nil
}

// Write replaces or creates a whole file, and reports the diagnostics it
// introduced.
func (h *Hub) Write(ctx context.Context, path, content string, opts textedit.WriteOptions, r *Run) (*WriteOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	rel := h.rel(path)
	old := h.before(rel)
	defer h.writing(rel)()
	res, err := h.files.Write(ctx, path, content, opts, r.Seen)
	if err != nil {
		return nil, err
	}
	files := h.written(res.Path)
	for i := range files {
		files[i].Old = old
	}
	return &WriteOutcome{res, h.afterWrite(ctx, r, files)}, nil
}

// ApplyPatch applies a multi-file patch, all or nothing, and reports the
// diagnostics it introduced.
func (h *Hub) ApplyPatch(ctx context.Context, patch string, r *Run) (*PatchOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	call := &patchCall{olds: map[string][]byte{}}
	defer call.finish()
	res, err := h.files.ApplyPatch(context.WithValue(ctx, patchCallKey{}, call), patch, r.Seen)
	if err != nil {
		return nil, err
	}
	olds := call.olds
	var files []lspmux.File
	for _, f := range res.Files {
		files = append(files, h.patched(f)...)
	}
	for i := range files {
		files[i].Old = olds[files[i].Path]
	}
	return &PatchOutcome{res, h.afterWrite(ctx, r, files)}, nil
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

// before is the text of the file at rel before a change, for a server
// that has not seen it yet; nil when there is none.
func (h *Hub) before(rel string) []byte {
	if rel == "" {
		return nil
	}
	data, err := h.Root.ReadText(rel)
	if err != nil {
		return nil
	}
	return data
}

// patchCallKey carries a *patchCall through a patch's commit.
type patchCallKey struct{}

// patchCall is what commitPatch tells ApplyPatch: each file's content
// before the patch, and the marks of the hub's own writes to undo once
// the servers have the change.
type patchCall struct {
	olds map[string][]byte
	done []func()
}

func (c *patchCall) finish() {
	for _, d := range c.done {
		d()
	}
}

// written is the file at rel as it is on disk now, for its server.
func (h *Hub) written(rel string) []lspmux.File {
	data, err := h.Root.ReadText(rel)
	if err != nil {
		return nil // too large or not text: no server reads it either
	}
	return []lspmux.File{{Path: rel, Data: data}}
}

// patched is what a patch did to one file, for its server: a file
// deleted, or moved away and the new one written.
func (h *Hub) patched(f textedit.PatchedFile) []lspmux.File {
	switch f.Kind {
	case "deleted":
		return []lspmux.File{{Path: f.Path, Deleted: true}}
	case "moved":
		return append([]lspmux.File{{Path: f.Path, Deleted: true}}, h.written(f.MoveTo)...)
	}
	return h.written(f.Path)
}
