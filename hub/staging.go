package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/textedit"
	"cchub/textfmt"
)

// StagedOutcome is a staged change as its stager sees it.
type StagedOutcome struct {
	*astedit.Staged
	// Searched says what the rewrite's search covered (files in its
	// languages, languages the pattern was invalid in).
	Searched int               `json:"files_searched,omitempty"`
	Invalid  map[string]string `json:"invalid,omitempty"`
	// ImportsFixed counts the Go files whose imports cchub fixed in
	// process (importfix), and ImportsOrganized those the language
	// server's organize-imports action changed, as part of the diff.
	ImportsFixed     int `json:"imports_fixed,omitempty"`
	ImportsOrganized int `json:"imports_organized,omitempty"`
	// ImportsNote says which imports were not organized and why (a
	// package only a server that did not answer can name; a language
	// cchub does not organize).
	ImportsNote string `json:"imports_note,omitempty"`
	policy      Approval
}

// ImportsText says what became of the changed files' imports: organized
// by the language server (part of the diff), or why not. "" when there
// was nothing to organize.
func (o *StagedOutcome) ImportsText() string {
	var b strings.Builder
	if o.ImportsFixed > 0 {
		fmt.Fprintf(&b, "imports fixed in %s (unused ones removed, standard-library ones added); that is part of the diff.\n", textfmt.Count(o.ImportsFixed, "file"))
	}
	if o.ImportsOrganized > 0 {
		fmt.Fprintf(&b, "imports organized by the language server in %s; that is part of the diff.\n", textfmt.Count(o.ImportsOrganized, "file"))
	}
	if o.ImportsNote != "" {
		b.WriteString(o.ImportsNote + "\n")
	} else if n := len(o.Unorganized); n > 0 {
		fmt.Fprintf(&b, "imports of %s were not organized when it was staged (%s): applying it asks the server again first, and refuses while it does not answer.\n", textfmt.Count(n, "file"), o.UnorganizedWhy)
	}
	return b.String()
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func (o *StagedOutcome) howToResolve() string {
	id := o.Staged.ID
	if o.policy == ApproveAgent {
		return fmt.Sprintf("To apply it: resolve action=accept id=%s; to drop it: resolve action=discard id=%s\n", id, id)
	}
	return fmt.Sprintf("A person applies it: ask the user to run `cchub review %s` in a terminal (or `cchub apply %s`). To drop it: resolve action=discard id=%s\n", id, id, id)
}

// stageFiles stages a change for review (a rewrite, a rename), with the
// imports of its files organized by their language server first, so
// the reviewer sees the change as it will build.
func (h *Hub) stageFiles(ctx context.Context, c *astedit.Change) (*StagedOutcome, error) {
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	imp := h.organizeImports(ctx, c)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := astedit.Stage(ctx, st, c)
	if err != nil {
		return nil, err
	}
	return &StagedOutcome{Staged: s, ImportsFixed: imp.fixed, ImportsOrganized: imp.organized, ImportsNote: imp.note, policy: h.approval}, nil
}

// StagedList is the pending changes, oldest first.
type StagedList []*astedit.Staged

// Text lists the pending changes one a line, as the resolve tool answers.
func (l StagedList) Text() string {
	if len(l) == 0 {
		return "no staged changes: rewrite (or an lsp rename) stages one.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s staged:\n", textfmt.Count(len(l), "change"))
	for i, s := range l {
		if i == maxListed {
			fmt.Fprintf(&b, "  and %s, newer (discard the ones you no longer need: resolve action=discard id=ID)\n", textfmt.Count(len(l)-i, "more change"))
			break
		}
		fmt.Fprintf(&b, "  %s  %s  %s  (%s)\n", s.ID, s.EditsInFiles(), s.Title, s.Created.Format("2006-01-02 15:04"))
	}
	return b.String()
}

// maxListed bounds the staged changes a list names.
const maxListed = 30

// Staged lists the pending changes.
func (h *Hub) Staged(ctx context.Context) (StagedList, error) {
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	return astedit.List(ctx, st)
}

// StagedChange returns one pending change with its diffs.
func (h *Hub) StagedChange(ctx context.Context, id string) (*StagedOutcome, error) {
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	s, err := astedit.Load(ctx, st, id)
	if err != nil {
		return nil, err
	}
	return &StagedOutcome{Staged: s, policy: h.approval}, nil
}

// Discard drops a pending change; no file is touched.
func (h *Hub) Discard(ctx context.Context, id string) (*Resolution, error) {
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	if err := astedit.Discard(ctx, st, id); err != nil {
		return nil, err
	}
	return &Resolution{ID: id, Outcome: "discarded"}, nil
}

// AppliedOutcome is a committed change and the diagnostics it brought.
type AppliedOutcome struct {
	*astedit.Committed
	Diagnostics *WriteDiagnostics `json:"diagnostics,omitempty"`
}

// Text says what was written.
func (o *AppliedOutcome) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "applied %s: %s written.\n", o.ID, textfmt.Count(len(o.Files), "file"))
	for _, f := range o.Files {
		fmt.Fprintf(&b, "  %s (%s, +%d -%d)\n", f.Path, f.Status, f.Added, f.Removed)
	}
	return b.String() + o.Diagnostics.Text()
}

// Apply commits a staged change whole (see astedit.Commit), tells the
// language servers about the files, and reports the diagnostics new to r.
func (h *Hub) Apply(ctx context.Context, id string, r *Run) (*AppliedOutcome, error) {
	if err := h.join(ctx, r); err != nil {
		return nil, err
	}
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	var paths []string
	if staged, err := st.StagedChange(ctx, id); err == nil {
		for _, f := range staged.Files {
			paths = append(paths, f.Path)
		}
	}
	if err := h.organizeStaged(ctx, st, id); err != nil {
		return nil, err
	}
	defer h.writing(paths...)()
	c, err := astedit.Commit(ctx, h.Root, st, id)
	if err != nil {
		return nil, err
	}
	files := forServers(c.Written)
	for _, f := range files {
		if f.Deleted {
			r.Seen.Forget(f.Path)
		} else {
			r.Seen.Saw(f.Path, f.Data)
		}
	}
	return &AppliedOutcome{Committed: c, Diagnostics: h.afterWrite(ctx, r, files)}, nil
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
	ignored := 0
	for _, r := range done {
		if r.Action == astedit.Ignored {
			ignored++
			continue
		}
		h.warn(fmt.Sprintf("%s the interrupted commit of change %s (%s)", r.Action, r.ID, strings.Join(r.Files, ", ")))
	}
	if ignored > 0 {
		h.warn(fmt.Sprintf("ignored %s not written by your cchub (a database copied or cloned into %s): nothing it names was touched",
			textfmt.Count(ignored, "commit journal row"), h.Root.StateShow()))
	}
	return err
}
