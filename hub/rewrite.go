package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/lspmux"
	"cchub/workspace"
)

// Approval says who may accept a staged change.
type Approval string

const (
	// ApproveHuman: only a person, with `cchub review ID` or `cchub apply
	// ID` (or a client that asks its user through MCP elicitation).
	ApproveHuman Approval = "human"
	// ApproveAgent: the agent may accept its own changes with resolve.
	ApproveAgent Approval = "agent"
)

// ParseApproval reads an approval policy by name; "" is human.
func ParseApproval(s string) (Approval, error) {
	switch Approval(strings.ToLower(strings.TrimSpace(s))) {
	case "", ApproveHuman:
		return ApproveHuman, nil
	case ApproveAgent:
		return ApproveAgent, nil
	}
	return "", fmt.Errorf("approval %q: use human (only a person applies staged changes) or agent (the agent may apply them)", s)
}

// StagedOutcome is a staged change as its stager sees it.
type StagedOutcome struct {
	*astedit.Staged
	// Searched says what the rewrite's search covered (files in its
	// languages, languages the pattern was invalid in).
	Searched int               `json:"files_searched,omitempty"`
	Invalid  map[string]string `json:"invalid,omitempty"`
	policy   Approval
}

// Rewrite stages a structural rewrite: nothing is written. A pattern that
// matches nowhere is an error that says so (there is nothing to stage).
func (h *Hub) Rewrite(ctx context.Context, o astedit.RewriteOptions) (*StagedOutcome, error) {
	if !h.oneShot {
		o.Cache = h.Parses
	}
	c, res, err := astedit.Rewrite(ctx, h.Root, o)
	if err != nil {
		return nil, err
	}
	if len(c.Files) == 0 {
		return nil, noRewrite(c, res.Files, o.Pattern)
	}
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	s, err := astedit.Stage(ctx, st, c)
	if err != nil {
		return nil, err
	}
	return &StagedOutcome{Staged: s, Searched: res.Files, Invalid: res.Invalid, policy: h.approval}, nil
}

// noRewrite says why a rewrite staged nothing.
func noRewrite(c *astedit.Change, files int, pattern string) error {
	if c.Unchanged > 0 {
		return fmt.Errorf("%w: all %d matches of the pattern already read as the template makes them; nothing to stage", astedit.ErrNoMatch, c.Unchanged)
	}
	return fmt.Errorf("%w: the pattern `%s` matches nothing in %s searched; nothing was staged. Try it with the search tool first, with fewer literal parts ($X for names that may differ)", astedit.ErrNoMatch, strings.TrimSpace(pattern), Count(files, "file"))
}

// Count is n things: "1 file", "1,204 files".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "ch") {
		return workspace.Thousands(n) + " " + what + "es"
	}
	return workspace.Thousands(n) + " " + what + "s"
}

// stageFiles stages a change other than a rewrite (a rename).
func (h *Hub) stageFiles(ctx context.Context, c *astedit.Change) (*StagedOutcome, error) {
	st, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	s, err := astedit.Stage(ctx, st, c)
	if err != nil {
		return nil, err
	}
	return &StagedOutcome{Staged: s, policy: h.approval}, nil
}

// Text is the report a model reads: the counts, the places, how to
// resolve, then the diff (last, so a bound cuts the diff, never the rest).
func (o *StagedOutcome) Text() string {
	var b strings.Builder
	s := o.Staged
	fmt.Fprintf(&b, "staged %s %s: %s in %s; nothing is written yet.\n", s.Kind, s.ID, Count(s.Matches, "change"), Count(len(s.Files), "file"))
	if s.Nested > 0 {
		fmt.Fprintf(&b, "%s inside rewritten ones %s not rewritten: apply this change, then run the same rewrite again to rewrite them.\n", Count(s.Nested, "nested match"), isAre(s.Nested))
	}
	if s.Overlapping > 0 {
		fmt.Fprintf(&b, "%s overlapping rewritten ones %s left out: apply this change and run the rewrite again.\n", Count(s.Overlapping, "match"), isAre(s.Overlapping))
	}
	if s.Unchanged > 0 {
		fmt.Fprintf(&b, "%s already read as the template makes them.\n", Count(s.Unchanged, "match"))
	}
	for lang, why := range o.Invalid {
		fmt.Fprintf(&b, "not searched in %s: %s\n", lang, why)
	}
	// How to resolve comes before the places and the diff: a long answer
	// is cut at its end.
	b.WriteString(o.howToResolve())
	for _, l := range s.Locations {
		fmt.Fprintf(&b, "  %s:%d: %s\n", l.Path, l.Line, l.Text)
	}
	if len(s.Locations) == 0 {
		for _, f := range s.Files {
			fmt.Fprintf(&b, "  %s (%s, +%d -%d)\n", f.Path, f.Status, f.Added, f.Removed)
		}
	}
	b.WriteString("\n")
	for _, f := range s.Files {
		b.WriteString(f.Diff)
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
		return fmt.Sprintf("To apply it: resolve with id %q and action \"accept\"; to drop it: action \"discard\".\n", id)
	}
	return fmt.Sprintf("A person applies it: ask the user to run `cchub review %s` in a terminal (or `cchub apply %s`). To drop it: resolve with id %q and action \"discard\".\n", id, id, id)
}

// StagedList is the pending changes, oldest first.
type StagedList []*astedit.Staged

// Text lists the pending changes one a line, as the resolve tool answers.
func (l StagedList) Text() string {
	if len(l) == 0 {
		return "no staged changes: rewrite (or an lsp rename) stages one.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s staged:\n", Count(len(l), "change"))
	for _, s := range l {
		fmt.Fprintf(&b, "  %s  %s in %s  %s  (%s)\n", s.ID, Count(s.Matches, "change"), Count(len(s.Files), "file"), s.Title, s.Created.Format("2006-01-02 15:04"))
	}
	return b.String()
}

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
func (h *Hub) Discard(ctx context.Context, id string) error {
	st, err := h.state(ctx)
	if err != nil {
		return err
	}
	return astedit.Discard(ctx, st, id)
}

// AppliedOutcome is a committed change and the diagnostics it brought.
type AppliedOutcome struct {
	*astedit.Committed
	Diagnostics *WriteDiagnostics `json:"diagnostics,omitempty"`
}

// Text says what was written.
func (o *AppliedOutcome) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "applied %s: %s written.\n", o.ID, Count(len(o.Files), "file"))
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
	c, err := astedit.Commit(ctx, h.Root, st, id)
	if err != nil {
		return nil, err
	}
	var files []lspmux.File
	for _, f := range c.Files {
		if f.Status == "deleted" {
			r.Seen.Forget(f.Path)
			files = append(files, lspmux.File{Path: f.Path, Deleted: true})
			continue
		}
		w := h.written(f.Path)
		for _, x := range w {
			r.Seen.Saw(x.Path, x.Data)
		}
		files = append(files, w...)
	}
	return &AppliedOutcome{Committed: c, Diagnostics: h.afterWrite(ctx, r, files)}, nil
}

// errNeedsHuman is the resolve tool's answer to "accept" under the human
// policy, when the client cannot ask its user.
var errNeedsHuman = errors.New("a person must approve this change")

// Asker asks the user of an agent's client to approve: ok is the answer,
// asked false when the client cannot ask. nil never asks.
type Asker func(ctx context.Context, message string) (ok, asked bool, err error)

// Resolution is what became of a pending change an agent resolved.
type Resolution struct {
	ID string `json:"id"`
	// Outcome is "discarded", "declined" (the user did not approve; it
	// stays staged) or "applied".
	Outcome string          `json:"outcome"`
	Applied *AppliedOutcome `json:"applied,omitempty"`
}

// Text says what became of the change.
func (r *Resolution) Text() string {
	switch r.Outcome {
	case "discarded":
		return fmt.Sprintf("discarded %s; no file was changed.\n", r.ID)
	case "declined":
		return fmt.Sprintf("the user did not approve %s; it stays staged, nothing was written. Discard it with action \"discard\", or stage another change.\n", r.ID)
	}
	return r.Applied.Text()
}

// Resolve accepts or discards a pending change for an agent. Under the
// human policy an agent cannot accept: ask puts the question to the
// client's user where it can, and otherwise the answer says who must run
// what.
func (h *Hub) Resolve(ctx context.Context, id, action string, r *Run, ask Asker) (*Resolution, error) {
	switch action {
	case "discard":
		if err := h.Discard(ctx, id); err != nil {
			return nil, err
		}
		return &Resolution{ID: id, Outcome: "discarded"}, nil
	case "accept":
	default:
		return nil, fmt.Errorf("action %q: use accept, discard, show or list", action)
	}
	if h.approval != ApproveAgent {
		s, err := h.StagedChange(ctx, id)
		if err != nil {
			return nil, err
		}
		ok, asked := false, false
		if ask != nil {
			ok, asked, err = ask(ctx, fmt.Sprintf("Apply %s: %s to %s?\n%s", s.ID, Count(s.Matches, "change"), Count(len(s.Files), "file"), s.Title))
			if err != nil {
				return nil, err
			}
		}
		if !asked {
			return nil, fmt.Errorf("%w: this workspace's approval policy is human, so an agent cannot apply %s. Ask the user to run `cchub review %s` in a terminal in the workspace; the change stays staged until then", errNeedsHuman, id, id)
		}
		if !ok {
			return &Resolution{ID: id, Outcome: "declined"}, nil
		}
	}
	o, err := h.Apply(ctx, id, r)
	if err != nil {
		return nil, err
	}
	return &Resolution{ID: id, Outcome: "applied", Applied: o}, nil
}
