package main

import (
	"context"

	"cchub/store/pgtest"
)

// The private cluster: initdb in a temporary directory as an unprivileged
// user, a unix socket there, trust auth (package pgtest).

func clusterAvailable() (bool, string) { return pgtest.Available() }

func startCluster(ctx context.Context, dir string) (cluster, error) {
	c, err := pgtest.Start(ctx, dir)
	if err != nil {
		return nil, err
	}
	return c, nil
}
