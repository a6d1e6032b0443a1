package main

import (
	"cchub/hub"
	"cchub/outline"

	"github.com/spf13/cobra"
)

func symbolCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "symbol ID",
		Short: "print one symbol: ID is path:Name, path:Type.method or path:line:Name",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*outline.SymbolText, error) {
				return h.ReadSymbol(c.Context(), args[0], outline.Budget{}, g.newRun())
			})
		},
	}
	jsonFlag(c, g)
	return c
}
