package hub

import (
	"context"

	"cchub/textedit"
)

// Edit replaces one place in a file (see textedit.Apply), as r has seen it.
func (h *Hub) Edit(ctx context.Context, path string, ch textedit.Change, r *Run) (*textedit.EditResult, error) {
	return h.files.Edit(ctx, path, ch, r.Seen)
}

// Write replaces or creates a whole file.
func (h *Hub) Write(ctx context.Context, path, content string, opts textedit.WriteOptions, r *Run) (*textedit.WriteResult, error) {
	return h.files.Write(ctx, path, content, opts, r.Seen)
}

// ApplyPatch applies a multi-file patch, all or nothing.
func (h *Hub) ApplyPatch(ctx context.Context, patch string, r *Run) (*textedit.PatchResult, error) {
	return h.files.ApplyPatch(ctx, patch, r.Seen)
}
