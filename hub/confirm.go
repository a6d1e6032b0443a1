package hub

import (
	"time"

	"cchub/codegraph"
	"cchub/confirm"
)

// Confirmer returns a codegraph.Confirmer that asks the workspace's
// language servers (started as the hub starts them, on first need) where
// each edge's call goes, within budget (0: 20 s) counted from each call:
// package confirm, on the hub's servers and code graph.
func (h *Hub) Confirmer(budget time.Duration) codegraph.Confirmer {
	return confirm.New(h.Root, h.servers, h.codeGraph, budget)
}
