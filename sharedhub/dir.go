package sharedhub

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The environment variables that steer sharing.
const (
	// EnvDir names the directory of the hubs' sockets, instead of
	// $XDG_RUNTIME_DIR/cchub (tests name one of their own).
	EnvDir = "CCHUB_HUB_DIR"
	// EnvNoShare set to 1 keeps every `cchub mcp` in its own process, as
	// --no-share does.
	EnvNoShare = "CCHUB_NO_SHARE"
	// EnvIdle is how long a hub lives with no session (a Go duration).
	EnvIdle = "CCHUB_HUB_IDLE"
)

// DefaultIdle is how long a hub lives with no session.
const DefaultIdle = 10 * time.Minute

// Idle is the idle time $CCHUB_HUB_IDLE says, else DefaultIdle.
func Idle() (time.Duration, error) {
	v := os.Getenv(EnvIdle)
	if v == "" {
		return DefaultIdle, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("$%s=%q is not a positive duration (like 10m or 30s)", EnvIdle, v)
	}
	return d, nil
}

// Dir is the directory of this user's hub sockets, made if missing: it
// must be a real directory (not a link) of this uid with mode 0700, or
// nothing in it is trusted.
func Dir() (string, error) { return dirOf(true) }

// ExistingDir is Dir when it exists, without making it: a command that
// only looks for a running hub leaves nothing behind. ok is false when
// there is none.
func ExistingDir() (dir string, ok bool, err error) {
	dir, err = dirOf(false)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	return dir, err == nil, err
}

func dirOf(make bool) (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		dir = defaultDir()
	}
	if make {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return "", fmt.Errorf("%s is not this user's", dir)
	case fi.Mode().Perm() != 0o700:
		return "", fmt.Errorf("%s has mode %v, not 0700", dir, fi.Mode().Perm())
	}
	return dir, nil
}

// defaultDir is where the sockets are when $CCHUB_HUB_DIR does not say:
// the user's runtime directory, found even when a client left
// $XDG_RUNTIME_DIR out of the environment it gave cchub (MCP clients pass
// a few variables only), else a directory of this uid under /tmp (not
// $TMPDIR, which differs between clients just the same).
func defaultDir() string {
	uid := os.Getuid()
	for _, rt := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/run/user/" + strconv.Itoa(uid)} {
		if rt == "" {
			continue
		}
		if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
				return filepath.Join(rt, "cchub")
			}
		}
	}
	return filepath.Join("/tmp", "cchub-hub-"+strconv.Itoa(uid))
}

// Hubs are the ids of the hubs whose sockets are in dir.
func Hubs(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "hub-*.sock"))
	var ids []string
	for _, n := range names {
		ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(n), "hub-"), ".sock"))
	}
	sort.Strings(ids)
	return ids
}

// sharedEnv says which environment variables change what a hub's
// servers answer or where it keeps things: a front with other values
// must not join. A name ending in * is a prefix.
var sharedEnv = []string{
	"PATH", "HOME", "USER", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"GO*", "CGO_*", "CC", "CXX", "CFLAGS", "PKG_CONFIG_PATH",
	"PYTHON*", "VIRTUAL_ENV", "CONDA_*", "NODE_*", "NPM_CONFIG_*",
	"CARGO_*", "RUSTUP_*", "JAVA_HOME", "PG*",
	"CCHUB_*",
}

// notShared are the variables of sharedEnv's prefixes that do not change
// a hub (they steer sharing itself).
var notShared = []string{EnvNoShare, EnvIdle, EnvDir}

// Identity names the hub a front may join: a hash of the executable's
// file identity (device, inode, size, modification and change times: a
// build written anywhere, or over the old one, is another file) and of
// the environment that matters (sharedEnv), as 16 hex digits. A hub of
// another build or environment has another name. The executable is not
// read: a front pays a stat, not a hash of its bytes.
func Identity() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		fmt.Fprintf(h, "\x00%d\x00%d\x00%d.%d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
	}
	for _, kv := range environment(os.Environ()) {
		fmt.Fprintf(h, "\x00%s", kv)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// environment is the entries of env that a hub is bound to, sorted.
func environment(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(notShared, name) {
			continue
		}
		for _, p := range sharedEnv {
			if name == p || strings.HasSuffix(p, "*") && strings.HasPrefix(name, p[:len(p)-1]) {
				out = append(out, kv)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// files are the paths of one hub's files in the directory.
type files struct {
	socket, lock, log string
}

func hubFiles(dir, id string) files {
	base := filepath.Join(dir, "hub-"+id)
	return files{socket: base + ".sock", lock: base + ".lock", log: base + ".log"}
}
