package hub

import (
	"context"

	"cchub/blast"
)

// Blast reports what the diff between two revisions changes and what
// calls it (see blast.Run). When the head is the working tree, the
// workspace's code graph, kept in its store, answers who calls what, so
// only files changed since the last index are read again. With
// o.Confirm, the hub's Confirmer asks the language servers, within
// o.ConfirmBudget.
func (h *Hub) Blast(ctx context.Context, o blast.Options) (*blast.Report, error) {
	deps := blast.Deps{Warn: h.say}
	if o.Confirm {
		deps.Confirm = h.Confirmer(o.ConfirmBudget)
	}
	// The head graph is kept for another runner only in a store runners
	// share: in the checkout's own file it would take the place of the
	// working tree's snapshot (kept one at a time).
	if sh, err := h.Shared(ctx); err == nil && sh.Engine() != "sqlite" {
		deps.Shared = sh
	}
	if o.Head == "" {
		deps.Graph = h.codeGraph(ctx)
		defer func() { h.sayAll(deps.Graph.Notices()) }()
	}
	return blast.Run(ctx, h.Root, h.Parses, o, deps)
}
