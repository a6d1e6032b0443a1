//go:build !pgtest

package main

import (
	"context"
	"errors"
)

// Until store/pgtest is in this tree, the benchmark starts no cluster of
// its own: give one with -store. When it is merged, delete this file and
// the build line of cluster_pgtest.go.

func clusterAvailable() (bool, string) {
	return false, "this build has no private cluster (store/pgtest); give a PostgreSQL with -store URL"
}

func startCluster(ctx context.Context, dir string) (cluster, error) {
	return nil, errors.New("this build has no private cluster (store/pgtest): give a PostgreSQL with -store URL")
}
