package main

import (
	"cchub/hub"
	"cchub/locate"

	"github.com/spf13/cobra"
)

func grepCmd(g *globals) *cobra.Command {
	var o locate.GrepOptions
	c := &cobra.Command{
		Use:   "grep PATTERN [PATH]",
		Short: "search file contents (RE2 regex, or --literal)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			o.Pattern = args[0]
			if len(args) == 2 {
				o.Path = args[1]
			}
			o.Limit = cliLimit(o.Limit)
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Grep(c.Context(), o)
				if err != nil {
					return badInput(err)
				}
				return emitFound(c, g, r, r.Text(), r.Total)
			})
		},
	}
	c.Flags().BoolVarP(&o.Literal, "literal", "F", false, "pattern is plain text")
	c.Flags().BoolVarP(&o.IgnoreCase, "ignore-case", "i", false, "ignore letter case")
	c.Flags().StringVar(&o.Include, "include", "", "only files whose path matches this glob")
	c.Flags().IntVar(&o.Limit, "limit", 0, "most matching lines to show (0: all, up to 200,000)")
	jsonFlag(c, g)
	return c
}
