package hub

import (
	"context"

	"cchub/store"
)

// state is the hub's database, opened on first need.
func (h *Hub) state(ctx context.Context) (*store.Store, error) {
	h.dbMu.Lock()
	defer h.dbMu.Unlock()
	if h.db == nil && h.dbErr == nil {
		h.db, h.dbErr = store.Open(ctx, h.Root)
	}
	return h.db, h.dbErr
}
