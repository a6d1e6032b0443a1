package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"cchub/anchor"
	"cchub/hub"
)

func anchorCmd(g *globals) *cobra.Command {
	var req anchor.Request
	var snippetFile, diffFile string
	c := &cobra.Command{
		Use:   "anchor PATH --snippet S | --snippet-file F [--base REF | --diff-file F] [--comment C]",
		Short: "place a quoted snippet on its exact lines: exit 0 placed, 1 unplaced, 2 bad input",
		Long: `Place a quoted snippet (a review comment's quote) on the exact lines it came from.
Tier 1 looks in PATH, tier 2 in exactly one other file (of the diff with --base or
--diff-file, else of the workspace), tier 3 asks a model when CCHUB_ANCHOR_LLM_URL and
CCHUB_ANCHOR_LLM_MODEL (and CCHUB_ANCHOR_LLM_KEY) name an OpenAI-compatible endpoint.
A quote that matches several places is not placed; the candidates are listed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			req.Path = args[0]
			if snippetFile != "" {
				data, err := os.ReadFile(snippetFile)
				if err != nil {
					return badInput(err)
				}
				req.Snippet = string(data)
			}
			if diffFile != "" {
				data, err := os.ReadFile(diffFile)
				if err != nil {
					return badInput(err)
				}
				req.DiffText = string(data)
			}
			if req.Snippet == "" {
				return badInput(errors.New("give the quote with --snippet or --snippet-file"))
			}
			return withHub(g, func(h *hub.Hub) error {
				o, err := h.Anchor(c.Context(), req, nil)
				if err != nil {
					return badInput(err)
				}
				if err := emit(c, g, o, o.Text()); err != nil {
					return err
				}
				if !o.Anchored {
					return errNoMatch
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&req.Snippet, "snippet", "", "the quoted code")
	c.Flags().StringVar(&snippetFile, "snippet-file", "", "read the quoted code from this file")
	c.Flags().StringVar(&req.Base, "base", "", "place the quote in `git diff REF` (new side)")
	c.Flags().StringVar(&diffFile, "diff-file", "", "place the quote in this unified diff (new side)")
	c.Flags().StringVar(&req.Comment, "comment", "", "the review comment, for the model tier")
	c.MarkFlagsMutuallyExclusive("snippet", "snippet-file")
	c.MarkFlagsMutuallyExclusive("base", "diff-file")
	jsonFlag(c, g)
	return c
}
