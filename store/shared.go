package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// The shared half of the store: what a file's content yields, whoever
// reads it. A file's extraction (the code graph's reading of it) is keyed
// by the SHA-256 of the content, its variant (language, and whether its
// path makes it a test file) and the extractor's format, so every
// checkout, path and machine that reads the same bytes can reuse it. A
// resolved graph (a snapshot) is keyed by its generation: the SHA-256 of
// every path and content of the tree it was resolved from.
//
// Two engines hold it: the checkout's own SQLite file (the default, see
// LocalShared) and a PostgreSQL database many checkouts share (OpenShared
// with a postgres:// URL). Everything tied to one checkout (runs, the
// ledger, staged changes, the journal, which file holds which content)
// stays in the checkout's SQLite whatever the engine: a shared database
// can change answers, never a checkout's files.
//
// Every blob is sealed with the SHA-256 of its key and payload (seal);
// a row whose seal does not match is never used: it is left out of the
// answer and described in the corrupt list the reader gets back.

// ExtractKey names one file's extraction.
// TokensVariant is the variant of the token index's filters (package
// tokenindex), kept among the extracts; Stats counts them apart.
const TokensVariant = "tokens"

// SyntaxVariant begins the variant of the token index's syntax records
// (whether a content parses cleanly as the language that follows it);
// Stats counts them apart.
const SyntaxVariant = "syntax/"

type ExtractKey struct {
	SHA256 [32]byte // of the file's content
	// Variant is the language as the extractor read it, with "/test"
	// added when the path made it a test file (its tests are marked).
	Variant string
	Format  int // the extractor's format (codegraph.Format)
}

// ExtractInfo is what is known of a stored extraction without its data.
type ExtractInfo struct {
	Defs, Calls int
}

// Extract is one extraction to store.
type Extract struct {
	ExtractKey
	ExtractInfo
	Data []byte // the extractor's encoding, unsealed
}

// Gen names a snapshot: the SHA-256 of the tree it was resolved from.
type Gen [32]byte

// SharedStats is what a shared store holds.
type SharedStats struct {
	Engine string `json:"engine"` // "sqlite" or "postgres"
	Where  string `json:"where"`  // for messages: a path, or a URL without its password
	Schema int    `json:"schema"` // migrations applied

	Extracts      int64 `json:"extracts"` // the code graph's, token filters apart
	ExtractBytes  int64 `json:"extract_bytes"`
	TokenFilters  int64 `json:"token_filters"` // extracts of variant TokensVariant
	TokenBytes    int64 `json:"token_bytes"`
	SyntaxRecords int64 `json:"syntax_records,omitempty"` // extracts of variant SyntaxVariant+language
	Snapshots     int64 `json:"snapshots"`                // complete ones
	SnapshotRows  int64 `json:"snapshot_rows"`
	SnapshotBytes int64 `json:"snapshot_bytes"`
	// TotalBytes is the database's size on disk (tables and indexes),
	// 0 when the engine cannot tell.
	TotalBytes int64 `json:"total_bytes"`
	// OldestUse and NewestUse are the least and most recent last use of
	// an entry (zero when empty).
	OldestUse time.Time `json:"oldest_use,omitzero"`
	NewestUse time.Time `json:"newest_use,omitzero"`
}

// GCStats is what a garbage collection removed.
type GCStats struct {
	Extracts  int64 `json:"extracts"`
	Snapshots int64 `json:"snapshots"`
	Rows      int64 `json:"rows"` // snapshot rows, incomplete snapshots' included
	Bytes     int64 `json:"bytes"`
}

// Shared is a content-addressed store. Its methods are safe for
// concurrent use, and many processes (8 CI runners, say) may write the
// same entries at once: a write of an entry that is there already is a
// no-op, and no write holds a transaction for long (a large put is cut
// into chunks that commit one by one).
type Shared interface {
	// Engine is "sqlite" or "postgres".
	Engine() string
	// Where says which store, for messages (never a password).
	Where() string

	// HaveExtracts says which of keys are stored, with their counts. It
	// reads no data.
	HaveExtracts(ctx context.Context, keys []ExtractKey) (map[ExtractKey]ExtractInfo, error)
	// GetExtracts calls fn with the data of each stored key of keys (in
	// no particular order; data is valid only during the call). Rows
	// whose seal does not match are skipped and described in corrupt.
	GetExtracts(ctx context.Context, keys []ExtractKey, fn func(k ExtractKey, data []byte) error) (corrupt []string, err error)
	// PutExtracts stores es (those already stored are left as they are).
	PutExtracts(ctx context.Context, es []Extract) error

	// HaveSnapshot says whether the snapshot gen is complete (reading
	// nothing else of it), and notes its use.
	HaveSnapshot(ctx context.Context, gen Gen) (bool, error)
	// SnapshotIndex returns the index blob of the complete snapshot gen,
	// or ok false when there is none (or it is corrupt: then corrupt says
	// so).
	SnapshotIndex(ctx context.Context, gen Gen) (index []byte, ok bool, corrupt []string, err error)
	// SnapshotRows returns the rows of snapshot gen named in names that
	// exist; rows whose seal does not match are left out and described.
	SnapshotRows(ctx context.Context, gen Gen, names []string) (rows map[string][]byte, corrupt []string, err error)
	// PutSnapshot stores a snapshot: its rows first, in chunks, then its
	// index, which makes it complete. A snapshot already complete is left
	// as it is.
	PutSnapshot(ctx context.Context, gen Gen, index []byte, rows map[string][]byte) error

	// Stats says what is stored.
	Stats(ctx context.Context) (SharedStats, error)
	// GC removes the entries no checkout has used for longer than
	// unused, and incomplete snapshots older than that.
	GC(ctx context.Context, unused time.Duration) (GCStats, error)
	// Close releases the engine's connections (LocalShared's: nothing,
	// the Store owns them).
	Close() error
}

// Seals. A stored blob is magic, kind, the SHA-256 of (kind, key,
// payload), then the payload (version 1, "cchub1"); a keyed writer's
// (version 2, "cchub2") has, between the checksum and the payload, its
// key's id and its key's MAC of the checksum. Every reader checks the
// checksum; a keyed reader also the MAC, and uses no version 1 row.
const (
	sealMagic  = "cchub1"
	sealMagic2 = "cchub2"
)

// Kinds of sealed blobs.
const (
	SealExtract  byte = 'e'
	SealSnapshot byte = 's' // a snapshot's row
	SealIndex    byte = 'i' // a snapshot's index
)

const (
	sealHeader  = len(sealMagic) + 1 + sha256.Size
	sealHeader2 = sealHeader + 8 + sha256.Size
)

// ExtractKeyBytes is an extraction's key as its seal hashes it.
func ExtractKeyBytes(k ExtractKey) []byte {
	b := make([]byte, 0, 32+len(k.Variant)+12)
	b = append(b, k.SHA256[:]...)
	b = binary.AppendUvarint(b, uint64(len(k.Variant)))
	b = append(b, k.Variant...)
	return binary.AppendUvarint(b, uint64(k.Format))
}

// SnapshotKeyBytes is a snapshot row's key (name "" for its index) as its
// seal hashes it.
func SnapshotKeyBytes(gen Gen, name string) []byte {
	return append(append([]byte(nil), gen[:]...), name...)
}

func sealSum(kind byte, key, payload []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte{kind})
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(key)))])
	h.Write(key)
	h.Write(payload)
	var s [32]byte
	h.Sum(s[:0])
	return s
}

// Seal returns payload sealed under kind and key, with a checksum only
// (what a process without a store key writes).
func Seal(kind byte, key, payload []byte) []byte { return SealKeyed(nil, kind, key, payload) }

// SealKeyed returns payload sealed under kind and key, with k's MAC (k
// nil: a checksum only, as Seal).
func SealKeyed(k *Key, kind byte, key, payload []byte) []byte {
	s := sealSum(kind, key, payload)
	if k == nil {
		out := make([]byte, 0, sealHeader+len(payload))
		out = append(out, sealMagic...)
		out = append(out, kind)
		out = append(out, s[:]...)
		return append(out, payload...)
	}
	out := make([]byte, 0, sealHeader2+len(payload))
	out = append(out, sealMagic2...)
	out = append(out, kind)
	out = append(out, s[:]...)
	out = append(out, k.id[:]...)
	m := k.mac(s)
	out = append(out, m[:]...)
	return append(out, payload...)
}

// ErrBadSeal is a stored blob that is not what its key says: corrupted,
// truncated, or written under another key.
var ErrBadSeal = errors.New("its checksum does not match its data")

// Unseal checks blob against kind and key and returns its payload (a
// slice of blob), checking the checksum only (a reader without a key).
func Unseal(kind byte, key, blob []byte) ([]byte, error) { return UnsealKeyed(nil, kind, key, blob) }

// UnsealKeyed checks blob against kind and key and returns its payload
// (a slice of blob). With k, a blob without k's valid MAC is refused
// with an error IsUntrusted reports; a damaged one, whatever k, with
// ErrBadSeal.
func UnsealKeyed(k *Key, kind byte, key, blob []byte) ([]byte, error) {
	header, keyed := sealHeader, false
	switch {
	case len(blob) >= sealHeader && string(blob[:len(sealMagic)]) == sealMagic:
	case len(blob) >= sealHeader2 && string(blob[:len(sealMagic2)]) == sealMagic2:
		header, keyed = sealHeader2, true
	default:
		return nil, fmt.Errorf("not a sealed %c blob: %w", kind, ErrBadSeal)
	}
	if blob[len(sealMagic)] != kind {
		return nil, fmt.Errorf("not a sealed %c blob: %w", kind, ErrBadSeal)
	}
	payload := blob[header:]
	s := sealSum(kind, key, payload)
	if !bytes.Equal(s[:], blob[len(sealMagic)+1:sealHeader]) {
		return nil, ErrBadSeal
	}
	if k == nil {
		return payload, nil
	}
	if !keyed {
		return nil, &errUntrusted{"it carries no MAC (written without the store key)"}
	}
	if id := blob[sealHeader : sealHeader+8]; !bytes.Equal(id, k.id[:]) {
		return nil, &errUntrusted{fmt.Sprintf("its MAC is of another store key (id %x, this one's is %s)", id, k.ID())}
	}
	m := k.mac(s)
	if !hmac.Equal(m[:], blob[sealHeader+8:sealHeader2]) {
		return nil, &errUntrusted{"its MAC does not verify (forged, or re-sealed without the store key)"}
	}
	return payload, nil
}
