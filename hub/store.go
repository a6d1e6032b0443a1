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

// The environment variables of the store key and mode (the CLI reads
// them into Options.StoreKey and StoreMode): a file holding the key, the
// key itself, and "read" or "write".
const (
	EnvStoreKeyFile = "CCHUB_STORE_KEY_FILE"
	EnvStoreKey     = "CCHUB_STORE_KEY"
	EnvStoreMode    = "CCHUB_STORE_MODE"
)

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
	sh, notice := store.OpenShared(ctx, spec, db, h.storeOpt)
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

// sayRejected says how many rows of the shared store were refused for
// their MAC (absent to a keyed reader, and rebuilt here): a one-shot hub
// once, counted, as it closes (closing true); a long-lived one when the
// first is refused (its later ones are counted when it closes).
func (h *Hub) sayRejected(closing bool) {
	h.dbMu.Lock()
	sh := h.shared
	h.dbMu.Unlock()
	if sh == nil || (h.oneShot && !closing) {
		return
	}
	n, first := store.SharedRejected(sh)
	h.noticeMu.Lock()
	said := h.rejectedSaid
	if n > said && (said == 0 || closing) {
		h.rejectedSaid = n
	} else {
		n = 0
	}
	h.noticeMu.Unlock()
	if n == 0 {
		return
	}
	what := "rows"
	if n == 1 {
		what = "row"
	}
	h.say(fmt.Sprintf("shared store: %d %s of %s refused, without a valid MAC under the store key (first: %s): treated as absent and rebuilt from this checkout; a process without this key wrote them (run such processes with --store-mode read), or they are forged",
		n, what, sh.Where(), first))
}
