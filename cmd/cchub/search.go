package main

import (
	"cchub/hub"
	"cchub/structsearch"
	"io"

	"github.com/spf13/cobra"
)

func searchCmd(g *globals) *cobra.Command {
	var o structsearch.Options
	var counts bool
	c := &cobra.Command{
		Use:   "search -p PATTERN [-l LANG] [PATH...]",
		Short: "structural search: find code by shape, with $METAVARIABLES",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Search(c.Context(), o)
				if err != nil {
					return badInput(err)
				}
				if g.asJSON {
					err = writeJSON(c, r.WriteJSONLines)
				} else {
					_, err = io.WriteString(c.OutOrStdout(), r.Text(structsearch.TextOptions{Counts: counts}))
				}
				if err != nil {
					return err
				}
				if len(r.Matches) == 0 {
					return errNoMatch
				}
				return nil
			})
		},
	}
	c.Flags().StringVarP(&o.Pattern, "pattern", "p", "", "the pattern, e.g. 'if $X != nil { return $X }'")
	c.Flags().StringVarP(&o.Lang, "lang", "l", "", "language of the pattern (default: each file's own)")
	c.Flags().BoolVar(&counts, "count", false, "print a count per file instead of the matches")
	c.MarkFlagRequired("pattern")
	c.Flags().BoolVar(&g.asJSON, "json", false, "print one JSON object per match, a line each (complete, never cut)")
	return c
}
