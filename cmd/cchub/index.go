package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"cchub/hub"
)

func indexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "build the code graph (definitions, calls, imports) and the token index of the workspace, and say what they hold",
		Long: "Index the workspace's code graph, and the token index that lets search and grep skip files that cannot match, into .cchub/:\n" +
			"only files changed since the last index are read again.\n" +
			"On a terminal, a progress bar shows the files read; nothing is drawn when stderr is not a terminal.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				// The bar draws with its own escapes; what it says is its own.
				bar := newProgress(rawErr(c), "indexing")
				st, err := h.Index(c.Context(), bar.Phase)
				bar.Finish()
				if err != nil {
					return err
				}
				shared := ""
				if st.Shared > 0 {
					shared = fmt.Sprintf(", %d from the shared store", st.Shared)
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "indexed %d files (%d read, %d parsed%s, %d removed): %d definitions, %d calls\n%s\n",
					st.Files, st.Read, st.Parsed, shared, st.Removed, st.Defs, st.Calls, st.Tokens)
				return err
			})
		},
	}
}
