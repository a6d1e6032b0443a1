package hub

import "cchub/textedit"

// Edit replaces one place in a file (see textedit.Apply), as r has seen it.
func (h *Hub) Edit(path string, ch textedit.Change, r *Run) (*textedit.EditResult, error) {
	return h.files.Edit(path, ch, r.Seen)
}

// Write replaces or creates a whole file.
func (h *Hub) Write(path, content string, opts textedit.WriteOptions, r *Run) (*textedit.WriteResult, error) {
	return h.files.Write(path, content, opts, r.Seen)
}

// ApplyPatch applies a multi-file patch, all or nothing.
func (h *Hub) ApplyPatch(patch string, r *Run) (*textedit.PatchResult, error) {
	return h.files.ApplyPatch(patch, r.Seen)
}
