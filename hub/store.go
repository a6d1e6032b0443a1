package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"cchub/store"
	"cchub/workspace"
)

// EnvStore is the environment variable naming the shared store when
// --store does not (the CLI reads it into Options.Store).
const EnvStore = "CCHUB_STORE"

// storeConfig is the part of .cchub.json that names the shared store.
type storeConfig struct {
	Store string `json:"store"`
}

// StoreFromConfig is the shared store a workspace's .cchub.json names, ""
// when none; skipped says why one named is not used (the file is not
// trusted: a repository must not send its index, or take its answers,
// from a database a person did not choose).
func StoreFromConfig(file workspace.Config) (spec, skipped string) {
	if file.Data == nil {
		return "", ""
	}
	var c storeConfig
	if json.Unmarshal(file.Data, &c) != nil || strings.TrimSpace(c.Store) == "" {
		return "", ""
	}
	if !file.Trusted {
		return "", fmt.Sprintf("%s names a shared store (%s), which cchub ignored: %s; the index is kept in this checkout. A person who has read it can trust it, at a terminal: cchub trust",
			workspace.ConfigFile, store.Redact(c.Store), file.Why)
	}
	return strings.TrimSpace(c.Store), ""
}

// Shared is the hub's shared store (the engine that keeps what each
// file's content yields), opened on first need: the one Options.Store
// names, else a trusted .cchub.json's, else the checkout's own file. A
// database that cannot be used is said once (Notice), and the checkout's
// own file serves instead.
func (h *Hub) Shared(ctx context.Context) (store.Shared, error) {
	db, err := h.state(ctx)
	if err != nil {
		return nil, err
	}
	h.dbMu.Lock()
	defer h.dbMu.Unlock()
	if h.shared != nil {
		return h.shared, nil
	}
	spec := h.storeSpec
	if spec == "" {
		file, err := h.Root.ReadConfig()
		if err == nil {
			var skipped string
			spec, skipped = StoreFromConfig(file)
			h.say(skipped)
		}
	}
	sh, notice := store.OpenShared(ctx, spec, db)
	h.say(notice)
	h.shared = sh
	return sh, nil
}

// StoreStats says what the shared store holds.
func (h *Hub) StoreStats(ctx context.Context) (store.SharedStats, error) {
	sh, err := h.Shared(ctx)
	if err != nil {
		return store.SharedStats{}, err
	}
	return sh.Stats(ctx)
}
