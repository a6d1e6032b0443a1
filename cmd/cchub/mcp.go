package main

import (
	"cchub/hub"
	"cchub/mcpserver"
	"cchub/proc"
	"cchub/syntax"
	"os"
	"time"

	"github.com/spf13/cobra"
)

func mcpCmd(g *globals) *cobra.Command {
	var cacheMB int
	var approval string
	var diagWait time.Duration
	c := &cobra.Command{
		Use:   "mcp",
		Short: "serve agents over MCP on stdio",
		Long: `Serve agents over MCP on stdio: one JSON-RPC message per line, at most 16 MiB.

A malformed line is answered with its JSON-RPC error and the session goes on.
cchub exits when the client closes stdin, or on SIGTERM or SIGINT, after
cancelling the tool calls in flight (within about a second). Notes the client
is not sent (a dropped malformed notification, the hub's warnings) go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			policy, err := hub.ParseApproval(approval)
			if err != nil {
				return badInput(err)
			}
			// A hub killed outright (with its debug supervisor, say) left
			// its run directory: the first start after it removes it.
			proc.Sweep()
			o := hub.Options{ParseCacheBytes: cacheMB << 20, Approval: policy, Store: g.storeSpec(), DiagnosticsTimeout: diagWait, Warn: mcpserver.Warn}
			if err := g.storeOptions(&o); err != nil {
				return badInput(err)
			}
			h, err := hub.Open(g.root, o)
			if err != nil {
				return badInput(err)
			}
			defer h.Close()
			return mcpserver.Serve(c.Context(), h)
		},
	}
	c.Flags().IntVar(&cacheMB, "parse-cache-mb", syntax.DefaultParseCacheBytes>>20,
		"source megabytes whose parsed trees stay cached (trees take several times their source in memory)")
	c.Flags().StringVar(&approval, "approval", os.Getenv("CCHUB_APPROVAL"),
		"who may accept staged changes: human (default; the agent is told to ask for `cchub review ID`) or agent (the resolve tool may accept); default from $CCHUB_APPROVAL")
	c.Flags().DurationVar(&diagWait, "diagnostics-timeout", 0,
		"how long a change's answer waits for its diagnostics to settle (default: .cchub.json's diagnostics_timeout, else 5s); what comes later is told with the next answer")
	return c
}
