package main

import (
	"cchub/hub"
	"cchub/locate"

	"github.com/spf13/cobra"
)

func readCmd(g *globals) *cobra.Command {
	var o locate.ReadOptions
	c := &cobra.Command{
		Use:   "read PATH",
		Short: "print a file's lines, numbered (or list a directory)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Path = args[0]
			return show(c, g, func(h *hub.Hub) (*locate.ReadResult, error) { return h.Read(c.Context(), o, g.newRun()) })
		},
	}
	c.Flags().IntVar(&o.Offset, "offset", 0, "first line to print, 1-based")
	c.Flags().IntVar(&o.Limit, "limit", 0, "most lines to print (default 2000)")
	jsonFlag(c, g)
	return c
}
