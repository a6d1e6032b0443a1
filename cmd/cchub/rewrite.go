package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"cchub/astedit"
	"cchub/hub"
	"cchub/review"
	"cchub/textfmt"
)

func rewriteCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{rewriteCmd(g), stagedCmd(g), reviewCmd(g), applyCmd(g), discardCmd(g)}
}

func rewriteCmd(g *globals) *cobra.Command {
	var o astedit.RewriteOptions
	c := &cobra.Command{
		Use:   "rewrite -p PATTERN -r TEMPLATE [-l LANG] [PATH...]",
		Short: "stage a structural rewrite; on a terminal, review it at once",
		Long: `Stage a structural rewrite: every match of PATTERN (as in cchub search) becomes
TEMPLATE, with the pattern's $METAVARIABLES substituted. Nothing is written:
the change is staged under an id. On a terminal the diff is shown and one key
applies it (y), discards it (n), shows it again (v) or keeps it staged (q).
Otherwise the diff is printed with the commands that apply or discard it.
Exit status: 0 staged, 1 no match, 2 bad input.`,
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			return withHub(g, func(h *hub.Hub) error {
				s, err := h.Rewrite(c.Context(), o)
				if errors.Is(err, astedit.ErrNoMatch) {
					return &exitError{code: 1, err: err}
				}
				if err != nil {
					return badInput(err)
				}
				return decide(c, g, h, s)
			})
		},
	}
	c.Flags().StringVarP(&o.Pattern, "pattern", "p", "", "the pattern, e.g. 'errors.Wrap($E, $MSG)'")
	c.Flags().StringVarP(&o.Template, "rewrite", "r", "", "what each match becomes, e.g. 'fmt.Errorf($MSG+\": %w\", $E)'")
	c.Flags().StringVarP(&o.Lang, "lang", "l", "", "language of the pattern (default: each file's own)")
	c.MarkFlagRequired("pattern")
	c.MarkFlagRequired("rewrite")
	jsonFlag(c, g)
	return c
}

func stagedCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "staged",
		Short: "list the staged changes",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withHub(g, func(h *hub.Hub) error {
				all, err := h.Staged(c.Context())
				if err != nil {
					return badInput(err)
				}
				var b strings.Builder
				if len(all) == 0 {
					b.WriteString("no staged changes\n")
				}
				for _, s := range all {
					fmt.Fprintf(&b, "%s  %-7s  %s  %s  %s\n", s.ID, s.Kind, s.EditsInFiles(), s.Created.Format("2006-01-02 15:04"), textfmt.Visible(s.Title))
				}
				if all == nil {
					all = []*astedit.Staged{}
				}
				return emit(c, g, all, b.String())
			})
		},
	}
	jsonFlag(c, g)
	return c
}

func reviewCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "review ID",
		Short: "show a staged change's diff; on a terminal, apply, discard or keep it with one key",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				s, err := h.StagedChange(c.Context(), args[0])
				if err != nil {
					return badInput(err)
				}
				return decide(c, g, h, s)
			})
		},
	}
	jsonFlag(c, g)
	return c
}

func applyCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "apply ID",
		Short: "write a staged change: all its files, or none if any changed since it was staged",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*hub.AppliedOutcome, error) {
				return h.Apply(c.Context(), args[0], g.newRun())
			})
		},
	}
	jsonFlag(c, g)
	return c
}

func discardCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "discard ID",
		Short: "drop a staged change; no file is touched",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				return discard(c, g, h, args[0])
			})
		},
	}
	jsonFlag(c, g)
	return c
}

// decide shows a staged change and, on a terminal, asks what to do with
// it. Without one (a pipe, CI, --json) it never prompts: it prints the
// change and the commands that resolve it.
func decide(c *cobra.Command, g *globals, h *hub.Hub, s *hub.StagedOutcome) error {
	out := c.OutOrStdout()
	if g.asJSON {
		return emit(c, g, s, "")
	}
	ch := reviewChange(s.Staged)
	// The prompt draws on the terminal itself (colours, paging) and
	// escapes what it shows of the change (review.Render's clean).
	stdout, ok := rawOut(c).(*os.File)
	if !ok || !review.IsTerminal(os.Stdin) || !review.IsTerminal(stdout) {
		if err := review.Render(out, ch, false, 0); err != nil {
			return err
		}
		var notes strings.Builder
		notes.WriteString(s.ImportsText())
		if s.Nested > 0 {
			fmt.Fprintf(&notes, "%s inside rewritten ones not rewritten: apply, then run the same rewrite again.\n", textfmt.Count(s.Nested, "nested match"))
		}
		if s.Overlapping > 0 {
			fmt.Fprintf(&notes, "%s overlapping rewritten ones left out: apply, then run the rewrite again.\n", textfmt.Count(s.Overlapping, "match"))
		}
		_, err := fmt.Fprintf(out, "\nstaged %s: %s; nothing is written yet.\n%sapply: cchub apply %s    discard: cchub discard %s    review: cchub review %s\n",
			s.ID, s.Staged.EditsInFiles(), notes.String(), s.ID, s.ID, s.ID)
		return err
	}
	d, err := review.Prompt(c.Context(), os.Stdin, stdout, ch)
	if err != nil && d != review.Keep {
		return err
	}
	switch d {
	case review.Apply:
		a, err := h.Apply(c.Context(), s.ID, g.newRun())
		if err != nil {
			return badInput(err)
		}
		_, err = io.WriteString(out, a.Text())
		return err
	case review.Discard:
		return discard(c, g, h, s.ID)
	}
	_, err = fmt.Fprintf(out, "kept %s staged; nothing was written. Later: cchub review %s\n", s.ID, s.ID)
	return err
}

// discard drops the staged change id and says so.
func discard(c *cobra.Command, g *globals, h *hub.Hub, id string) error {
	r, err := h.Discard(c.Context(), id)
	if err != nil {
		return badInput(err)
	}
	return emit(c, g, r, fmt.Sprintf("discarded %s; no file was changed\n", r.ID))
}

// reviewChange is what the terminal review shows of s.
func reviewChange(s *astedit.Staged) review.Change {
	c := review.Change{ID: s.ID, Title: s.Title, Matches: s.Matches}
	for _, f := range s.Files {
		c.Files = append(c.Files, review.File{Path: f.Path, Diff: f.Diff, Added: f.Added, Removed: f.Removed, Status: f.Status})
	}
	return c
}
