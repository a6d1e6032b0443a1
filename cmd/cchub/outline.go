package main

import (
	"cchub/hub"
	"cchub/outline"

	"github.com/spf13/cobra"
)

func outlineCmd(g *globals) *cobra.Command {
	var o outline.Options
	c := &cobra.Command{
		Use:   "outline PATH",
		Short: "a file's symbols with line ranges (or a directory's map)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*outline.Result, error) { return h.Outline(c.Context(), args[0], o) })
		},
	}
	c.Flags().IntVar(&o.LongFunctionLines, "long-function", 0, "list the blocks of functions longer than this many lines (default 150; with --detail)")
	c.Flags().StringVar(&o.Match, "match", "", "keep only symbols whose name contains this, or matches this glob")
	c.Flags().BoolVar(&o.Detail, "detail", false, "show doc summaries, decorators, group members and the blocks of long functions")
	jsonFlag(c, g)
	return c
}
