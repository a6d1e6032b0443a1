// Package trust keeps what belongs to the person, not to the workspace:
// which workspaces they trusted to name programs for cchub to run, and a
// random id that marks the state this user's cchub wrote. Both live in the
// user's own configuration directory, never in a workspace, so nothing a
// repository ships (and nothing an agent writes into it) can grant trust or
// pass for this user's state.
//
// Trust is keyed by the workspace's real path and the SHA-256 of its
// .cchub.json as it was when the person trusted it: any change to the
// file, an agent's write included, revokes it, as direnv's allow does.
package trust

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// EnvDir names the directory cchub keeps the user's own files in, in place
// of the default (the user configuration directory's cchub folder). Tests
// set it so they never touch the person's real one.
const EnvDir = "CCHUB_CONFIG_DIR"

// Dir is the user's cchub configuration directory: $CCHUB_CONFIG_DIR, else
// cchub under the user configuration directory ($XDG_CONFIG_HOME or
// ~/.config on Linux).
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("trust: no user configuration directory (%v); set %s to a directory of your own", err, EnvDir)
	}
	return filepath.Join(base, "cchub"), nil
}

// ensureDir makes Dir (mode 0700) and refuses one another user owns or
// others may write: what it holds decides what runs.
func ensureDir() (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("trust: cchub keeps your id and trust records in %s, which cannot be made (%w); set %s to a writable directory of your own", d, err, EnvDir)
	}
	if err := checkPrivate(d, true); err != nil {
		return "", err
	}
	return d, nil
}

// ID is this user's random cchub id (32 hex digits), made on first use and
// kept in Dir with mode 0600. cchub stamps the state it writes with it, so
// that a journal, a staged change or a state directory shipped in a
// repository is never taken for its own.
func ID() (string, error) {
	d, err := ensureDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, "id")
	if data, err := readPrivate(p); err == nil {
		id := strings.TrimSpace(string(data))
		if isID(id) {
			return id, nil
		}
		return "", fmt.Errorf("trust: %s does not hold a cchub id; remove it and cchub makes a new one", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("trust: random id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return ID() // another process made it first: use theirs
	}
	if err != nil {
		return "", fmt.Errorf("trust: %s cannot be made (%w); set %s to a writable directory of your own", p, err, EnvDir)
	}
	_, err = f.WriteString(id + "\n")
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		os.Remove(p)
		return "", fmt.Errorf("trust: %s: %w", p, err)
	}
	return id, nil
}

func isID(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// Entry is one trusted workspace.
type Entry struct {
	Root   string    `json:"root"`   // real path
	SHA256 string    `json:"sha256"` // of .cchub.json when trusted; Absent if there was none
	When   time.Time `json:"when"`
	// Runs is what the person was shown would run, for --list.
	Runs []string `json:"runs,omitempty"`
}

// Absent is the hash recorded for a workspace trusted without a
// .cchub.json: writing one later revokes the trust.
const Absent = "absent"

// Hash is the key of a configuration's content; nil means no file.
func Hash(config []byte) string {
	if config == nil {
		return Absent
	}
	s := sha256.Sum256(config)
	return hex.EncodeToString(s[:])
}

const fileName = "trusted.json"

func load() ([]Entry, string, error) {
	d, err := Dir()
	if err != nil {
		return nil, "", err
	}
	p := filepath.Join(d, fileName)
	data, err := readPrivate(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, p, nil
	}
	if err != nil {
		return nil, p, err
	}
	var es []Entry
	if err := json.Unmarshal(data, &es); err != nil {
		return nil, p, fmt.Errorf("trust: %s is not valid (%v); remove it and trust the workspaces again", p, err)
	}
	return es, p, nil
}

func save(es []Entry) error {
	d, err := ensureDir()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(es, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(d, fileName+".*")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(d, fileName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// Trusted reports whether the person trusted the workspace at root (a real
// path) with exactly this configuration (nil: no .cchub.json).
func Trusted(root string, config []byte) (bool, error) {
	es, _, err := load()
	if err != nil {
		return false, err
	}
	h := Hash(config)
	for _, e := range es {
		if e.Root == root {
			return e.SHA256 == h, nil
		}
	}
	return false, nil
}

// Recorded is the entry for root, if there is one, whatever its hash.
func Recorded(root string) (Entry, bool, error) {
	es, _, err := load()
	if err != nil {
		return Entry{}, false, err
	}
	for _, e := range es {
		if e.Root == root {
			return e, true, nil
		}
	}
	return Entry{}, false, nil
}

// Grant records that the person trusts root with this configuration,
// replacing an earlier entry for root.
func Grant(root string, config []byte, runs []string) error {
	es, _, err := load()
	if err != nil {
		return err
	}
	es = slices.DeleteFunc(es, func(e Entry) bool { return e.Root == root })
	es = append(es, Entry{Root: root, SHA256: Hash(config), When: time.Now().UTC().Truncate(time.Second), Runs: runs})
	slices.SortFunc(es, func(a, b Entry) int { return strings.Compare(a.Root, b.Root) })
	return save(es)
}

// Revoke forgets root; it reports whether there was anything to forget.
func Revoke(root string) (bool, error) {
	es, _, err := load()
	if err != nil {
		return false, err
	}
	n := len(es)
	es = slices.DeleteFunc(es, func(e Entry) bool { return e.Root == root })
	if len(es) == n {
		return false, nil
	}
	return true, save(es)
}

// List is every trusted workspace, by path.
func List() ([]Entry, error) {
	es, _, err := load()
	return es, err
}

// readPrivate reads a file of the user's configuration directory only if
// it is a regular file the user owns that no one else may write.
func readPrivate(p string) ([]byte, error) {
	if err := checkPrivate(p, false); err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}
