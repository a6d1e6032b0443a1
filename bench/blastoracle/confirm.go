package main

import (
	"fmt"
	"time"

	"cchub/codegraph"
	"cchub/hub"
)

// confirmerHub is the hub's confirmation of call edges by its language
// server: hub.(*Hub).Confirmer, asked of the hub through this interface
// so that the benchmark builds, and says what is missing, with a hub that
// does not have it yet.
type confirmerHub interface {
	Confirmer(budget time.Duration) codegraph.Confirmer
}

// openConfirmer opens a hub on dir (its state kept in dir's own state
// directory) and returns its Confirmer, with budget for each
// confirmation, and how to close the hub.
func openConfirmer(dir string, budget time.Duration) (codegraph.Confirmer, func(), error) {
	h, err := hub.Open(dir, hub.Options{})
	if err != nil {
		return nil, nil, err
	}
	c, ok := any(h).(confirmerHub)
	if !ok {
		h.Close()
		return nil, nil, fmt.Errorf("this build's hub has no Confirmer(time.Duration) codegraph.Confirmer: -confirm and -timing need it; run without them")
	}
	return c.Confirmer(budget), func() { h.Close() }, nil
}
