package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"cchub/hub"
)

func diagCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "diag [PATH...]",
		Short: "the language servers' diagnostics of files (all of the workspace without PATH); exit 1 when one is an error, 3 when a file could not be checked",
		Long: "Print the language servers' current diagnostics of the files given, or of the whole workspace.\n\n" +
			"Exit codes: 0 no error found in what was checked, and everything was checked; 1 a diagnostic is an error\n" +
			"(whatever else could not be checked); 2 bad input; 3 no error found, but a file (or, for the whole\n" +
			"workspace, a server) could not be checked: its language server is missing, failed to start, was still\n" +
			"starting or crashed, as the notes say. A gate treats 3 as \"not known to be clean\".",
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.DiagnosticsWith(c.Context(), nil, hub.DiagnosticsOptions{Paths: args, Command: true})
				if err != nil {
					return badInput(err)
				}
				if err := emit(c, g, r, r.Lines()); err != nil {
					return err
				}
				if r.Errors() > 0 {
					return errNoMatch
				}
				if len(r.Unchecked) > 0 {
					return &exitError{code: 3, err: fmt.Errorf("%d not checked (%v): the notes say why and how to fix it", len(r.Unchecked), r.Unchecked)}
				}
				return nil
			})
		},
	}
	jsonFlag(c, g)
	return c
}
