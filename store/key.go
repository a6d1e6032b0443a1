package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// A shared store's rows are sealed with a checksum that anyone who may
// write the database can compute again, so a checksum alone keeps out
// damage, not a writer: a planted row (an all-zero token filter, an
// extraction re-sealed with another file's reading) seals correctly. A
// team that writes its shared store from CI only gives CI a key: every
// row a keyed process writes carries an HMAC-SHA256 of its seal (which
// binds the row's kind, its key columns and its data), and a keyed
// reader uses only rows whose MAC verifies under its key; any other row
// is absent to it (rebuilt here, and said once, counted).

// MinKeyBytes is the least length of a store key: 32 bytes, a key from
// `openssl rand -hex 32` (64 characters) or longer.
const MinKeyBytes = 32

// Key is a team's store key. It never prints its secret: String and the
// messages that name a key give its id, the first 8 bytes of its MAC of
// a fixed text, which is how two keys are told apart.
type Key struct {
	secret []byte
	id     [8]byte
}

// NewKey is the key of secret (surrounding white space trimmed, as a key
// file's final newline is), refused when shorter than MinKeyBytes.
func NewKey(secret []byte) (*Key, error) {
	secret = bytes.TrimSpace(secret)
	if len(secret) < MinKeyBytes {
		return nil, fmt.Errorf("the store key has %d bytes, fewer than %d; make one with: openssl rand -hex 32", len(secret), MinKeyBytes)
	}
	k := &Key{secret: bytes.Clone(secret)}
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte("cchub store key id"))
	copy(k.id[:], m.Sum(nil))
	return k, nil
}

// ID names the key in messages (never its secret).
func (k *Key) ID() string { return hex.EncodeToString(k.id[:]) }

func (k *Key) String() string   { return "store key " + k.ID() }
func (k *Key) GoString() string { return k.String() }

// mac is the key's MAC of a seal's checksum.
func (k *Key) mac(sum [32]byte) [32]byte {
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte("cchub store row\x00"))
	m.Write(sum[:])
	var out [32]byte
	m.Sum(out[:0])
	return out
}

// maxKeyFile bounds what a key file may hold.
const maxKeyFile = 4096

// LoadKeyFile reads a store key from path, refusing a file others may
// read or write (as ssh refuses a private key): it must be a regular
// file of this user's (or root's) that no group or other user can reach.
func LoadKeyFile(path string) (*Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store key file: %w; give a readable file (chmod 600) in --store-key-file / CCHUB_STORE_KEY_FILE", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store key file %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("store key file %s is not a regular file; give the file that holds the key", path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("store key file %s: permissions %04o are too open: others may read or change the key; run chmod 600 %s", path, perm, path)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != uint32(os.Getuid()) && sys.Uid != 0 {
		return nil, fmt.Errorf("store key file %s belongs to user id %d, not to you (%d); keep the key in a file of your own", path, sys.Uid, os.Getuid())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("store key file %s: %w", path, err)
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("store key file %s holds more than %d bytes; it should hold one key (openssl rand -hex 32)", path, maxKeyFile)
	}
	k, err := NewKey(data)
	if err != nil {
		return nil, fmt.Errorf("store key file %s: %w", path, err)
	}
	return k, nil
}

// Mode is what a process may do to the shared store.
type Mode int

const (
	// ReadWrite reads the store and writes what it made (the default).
	ReadWrite Mode = iota
	// ReadOnly reads the store and writes nothing to it: no new rows, no
	// removal of rows found corrupt, no note of use. A laptop without
	// the team's key takes CI's work this way, never writing what CI
	// reads.
	ReadOnly
)

// ParseMode reads a mode as --store-mode and CCHUB_STORE_MODE give it:
// "read", or "write" (and "" for the default, write).
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case "", "write", "read-write":
		return ReadWrite, nil
	case "read", "read-only":
		return ReadOnly, nil
	}
	return ReadWrite, fmt.Errorf("store mode %q: give read (use the shared store, write nothing to it) or write", s)
}

func (m Mode) String() string {
	if m == ReadOnly {
		return "read"
	}
	return "write"
}

// errUntrusted is a row a keyed reader does not use: it verifies as a
// checksum but carries no MAC under the reader's key.
type errUntrusted struct{ why string }

func (e *errUntrusted) Error() string { return e.why }

// IsUntrusted says whether err is a row refused for its MAC (not for a
// damaged checksum).
func IsUntrusted(err error) bool {
	var u *errUntrusted
	return errors.As(err, &u)
}

// SharedOptions is how a process uses a shared store: with a key or
// without, reading and writing or only reading.
type SharedOptions struct {
	// Key, if set, seals every row written with its MAC, and makes every
	// row without a valid MAC under it absent.
	Key  *Key
	Mode Mode
}

// rowTrust is what both engines share of SharedOptions: sealing and
// opening rows, and the count of rows refused for their MAC.
type rowTrust struct {
	opt      SharedOptions
	rejected atomic.Int64
	mu       sync.Mutex
	first    string // the first row refused, and why
	verified sync.Map
}

func (t *rowTrust) seal(kind byte, key, payload []byte) []byte {
	return SealKeyed(t.opt.Key, kind, key, payload)
}

// open unseals blob, counting a row refused for its MAC (what names it,
// for the first one's message).
func (t *rowTrust) open(kind byte, key, blob []byte, what func() string) ([]byte, error) {
	p, err := UnsealKeyed(t.opt.Key, kind, key, blob)
	if err != nil && IsUntrusted(err) && t.rejected.Add(1) == 1 {
		t.mu.Lock()
		t.first = what() + ": " + err.Error()
		t.mu.Unlock()
	}
	return p, err
}

// writes says whether this process may write the store.
func (t *rowTrust) writes() bool { return t.opt.Mode != ReadOnly }

// Rejected is how many rows a keyed reader refused for their MAC, and
// what the first was and why.
func (t *rowTrust) Rejected() (int64, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rejected.Load(), t.first
}

// SharedRejected is how many rows sh refused for their MAC (a keyed
// reader's rows absent to it), and what the first was and why.
func SharedRejected(sh Shared) (int64, string) {
	if r, ok := sh.(interface{ Rejected() (int64, string) }); ok {
		return r.Rejected()
	}
	return 0, ""
}

// errReadOnly is a call that would write a store opened to read.
var errReadOnly = errors.New("the shared store is opened to read only (--store-mode read / CCHUB_STORE_MODE=read); run this where the store may be written")
