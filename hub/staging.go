package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"cchub/astedit"
	"cchub/textedit"
)

// recoverCommits finishes or undoes a commit a crash interrupted, before
// the hub does anything else. Without the journal's marker there is none,
// and the database is not even opened (every CLI command starts here).
func (h *Hub) recoverCommits(ctx context.Context) error {
	if !astedit.Pending(h.Root) {
		return nil
	}
	st, err := h.state(ctx)
	if err != nil {
		return nil // the first call that needs the store says why
	}
	done, err := astedit.Recover(ctx, h.Root, st)
	for _, r := range done {
		fmt.Fprintf(os.Stderr, "cchub: %s the interrupted commit of change %s (%s)\n", r.Action, r.ID, strings.Join(r.Files, ", "))
	}
	return err
}

// commitPatch writes a verified multi-file patch through the same staged,
// journaled commit as a rewrite: whole or not at all, even across a crash.
// It is staged and committed at once (the agent asked for exactly this
// change); a failed commit leaves nothing staged.
func (h *Hub) commitPatch(ctx context.Context, files []textedit.PlannedFile) error {
	st, err := h.state(ctx)
	if err != nil {
		return err
	}
	c := &astedit.Change{Kind: "patch", Title: "apply_patch"}
	for _, f := range files {
		c.Files = append(c.Files, astedit.FileEdit{Path: f.Path, Old: f.Old, New: f.New, Mode: f.Mode})
	}
	s, err := astedit.Stage(ctx, st, c)
	if err != nil {
		return err
	}
	if _, err := astedit.Commit(ctx, h.Root, st, s.ID); err != nil {
		astedit.Discard(context.WithoutCancel(ctx), st, s.ID)
		var drift *astedit.DriftError
		if errors.As(err, &drift) {
			return fmt.Errorf("textedit: patch: %s changed while the patch was being applied; nothing was written: read them again and send the patch again", strings.Join(drift.Files, ", "))
		}
		return fmt.Errorf("textedit: patch: %w", err)
	}
	return nil
}
