package main

import (
	"cchub/hub"
	"cchub/locate"

	"github.com/spf13/cobra"
)

func globCmd(g *globals) *cobra.Command {
	var path string
	var limit int
	c := &cobra.Command{
		Use:   "glob PATTERN",
		Short: "list files matching a glob, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Glob(c.Context(), locate.GlobOptions{Pattern: args[0], Path: path, Limit: cliLimit(limit)})
				if err != nil {
					return badInput(err)
				}
				return emitFound(c, g, r, r.Text(), r.Total)
			})
		},
	}
	c.Flags().StringVar(&path, "path", "", "directory to search under")
	c.Flags().IntVar(&limit, "limit", 0, "most files to list (0: all, up to 200,000)")
	jsonFlag(c, g)
	return c
}
