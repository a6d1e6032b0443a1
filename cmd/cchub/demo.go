package main

import (
	"os"

	"github.com/spf13/cobra"

	"cchub/demo"
)

func demoCmd(g *globals) *cobra.Command {
	var from string
	c := &cobra.Command{
		Use:   "demo",
		Short: "a scripted tour of every capability on a bundled workspace",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			return demo.Run(c.Context(), c.OutOrStdout(), demo.Options{Binary: self, Workspace: from})
		},
	}
	c.Flags().StringVar(&from, "workspace", "", "workspace to tour (copied first; default: the bundled testdata/workspaces/go)")
	return c
}
