package main

import (
	"cchub/hub"

	"github.com/spf13/cobra"
)

func graphCmd(g *globals) *cobra.Command {
	var q hub.GraphQuery
	c := &cobra.Command{
		Use:   "graph symbols|callers|callees|blast NAME...",
		Short: "ask the code graph: definitions by name or glob, callers, callees, blast radius",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			q.Op, q.Name, q.Names = args[0], args[1], args[2:]
			return show(c, g, func(h *hub.Hub) (*hub.GraphResult, error) { return h.Graph(c.Context(), q) })
		},
	}
	c.Flags().IntVar(&q.Depth, "depth", 3, "blast: how many calls away")
	c.Flags().StringVar(&q.MinConfidence, "min-confidence", "", "blast: the least evidence followed: exact, import, name-only or possible")
	c.Flags().BoolVar(&q.Confirm, "confirm", false, "callers, blast: ask the language server about name-only and possible edges (refuted ones are left out)")
	jsonFlag(c, g)
	return c
}
