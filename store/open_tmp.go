package store

import "context"

// OpenShared: a stand-in until the PostgreSQL engine lands (lead's branch only).
func OpenShared(ctx context.Context, spec string, local *Store) (Shared, string) {
	if spec == "" || spec == "sqlite" {
		return LocalShared(local), ""
	}
	return LocalShared(local), "shared store: PostgreSQL is not built in yet"
}
