package main

import (
	"cchub/hub"
	"cchub/textedit"

	"github.com/spf13/cobra"
)

func editCmd(g *globals) *cobra.Command {
	var ch textedit.Change
	c := &cobra.Command{
		Use:   "edit PATH --old S --new S",
		Short: "replace one place in a file, as the agents' edit tool does",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*hub.EditOutcome, error) { return h.Edit(c.Context(), args[0], ch, g.newRun()) })
		},
	}
	c.Flags().StringVar(&ch.Old, "old", "", "the text to replace")
	c.Flags().StringVar(&ch.New, "new", "", "the text to put in its place")
	c.Flags().BoolVar(&ch.ReplaceAll, "replace-all", false, "replace every occurrence")
	c.MarkFlagRequired("old")
	c.MarkFlagRequired("new")
	jsonFlag(c, g)
	return c
}
