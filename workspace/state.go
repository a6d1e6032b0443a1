package workspace

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"cchub/trust"
)

// cchub's state acts by identity, not by location. A .cchub directory in
// the workspace is used only if it is this user's: a real directory, owned
// by the current user, holding a stamp (StampFile) that only this user's
// cchub can make for this workspace's path. A repository can ship a
// .cchub (a database with a half-finished commit in its journal, say), and
// a clone, an unpacked archive or a copy of someone's workspace brings one
// along; none of them carries this user's stamp for this path, so cchub
// ignores it, changes nothing in it, and keeps its state in a private
// directory of the user's own (FallbackStateDir) instead.

// StampFile is the file in .cchub that says whose state it is: the hex
// of HMAC-SHA256 keyed by the user's cchub id (trust.ID) over the
// workspace's real path. The id never lands in a workspace, and a stamp
// copied to another path does not match there.
const StampFile = "owner"

// JournalMarker is the file in the state directory that exists while a
// commit may be unfinished (astedit's). An unstamped .cchub holding one
// is never adopted: that is the shape of a planted journal.
const JournalMarker = "commit-journal-open"

// EnvStateHome names the directory under which cchub keeps the state of
// workspaces whose .cchub is not the user's, in place of the default
// (cchub/state under the user cache directory; under $CCHUB_CONFIG_DIR
// when that is set, so tests never touch the person's own).
const EnvStateHome = "CCHUB_STATE_HOME"

// TrackedFunc says whether git tracks anything under rel (slash-separated,
// relative to the root). Package workspace runs no git; the hub gives it
// one (CheckTrackedWith) before the state directory is first used.
type TrackedFunc func(rel string) (bool, error)

// CheckTrackedWith sets how an unstamped .cchub is checked against git
// before cchub adopts it. Without one, an unstamped .cchub is adopted only
// where the root has no .git. Call it before the state is first used.
func (r *Root) CheckTrackedWith(f TrackedFunc) { r.tracked = f }

// stateChoice is where this Root keeps its state, decided once.
type stateChoice struct {
	once   sync.Once
	local  bool   // <root>/.cchub (made on first need if absent)
	dir    string // absolute path of the state directory
	stamp  string // this user's stamp for this root: the writer of rows too
	notice string // why a .cchub in the workspace is ignored, if one is
	err    error
}

// Stamp is the value that marks state as this user's for the workspace at
// root (a real path): hex HMAC-SHA256, keyed by id, of root.
func Stamp(id, root string) string {
	m := hmac.New(sha256.New, []byte(id))
	io.WriteString(m, "cchub state v1\x00"+root)
	return hex.EncodeToString(m.Sum(nil))
}

func (r *Root) choice() *stateChoice {
	c := &r.state
	c.once.Do(func() { r.choose(c) })
	return c
}

// StateNotice is the warning to give once per command (or MCP session)
// when the workspace's .cchub is not this user's and cchub keeps its state
// elsewhere; "" otherwise.
func (r *Root) StateNotice() string { return r.choice().notice }

// StateInWorkspace reports whether the state directory is the workspace's
// own .cchub (so a file in it can be read through the workspace).
func (r *Root) StateInWorkspace() bool { return r.choice().local }

// StateShow is how messages name the state directory: .cchub, or the
// private directory used in its place.
func (r *Root) StateShow() string {
	c := r.choice()
	if c.local || c.dir == "" {
		return StateDir
	}
	return c.dir
}

// StatePath is the absolute path of the state directory, for a library
// that opens files by name (SQLite). Open it with OpenStateDir first, and
// check what was opened by name is the file under that handle.
func (r *Root) StatePath() (string, error) {
	c := r.choice()
	return c.dir, c.err
}

// StateWriter is the value cchub records as the writer of what it keeps
// (staged changes, the commit journal): this user's stamp for this root.
func (r *Root) StateWriter() (string, error) {
	c := r.choice()
	return c.stamp, c.err
}

// choose decides, once, where the state lives.
func (r *Root) choose(c *stateChoice) {
	id, err := trust.ID()
	if err != nil {
		c.err = fmt.Errorf("workspace: cchub cannot tell its own state from another's: %w", err)
		return
	}
	c.stamp = Stamp(id, r.dir)
	c.dir = filepath.Join(r.dir, StateDir)
	f, state, err := r.stateFacts(c.stamp)
	if state != nil {
		defer state.Close()
	}
	if err != nil {
		c.err = err
		return
	}
	v, why := decideState(f)
	switch v {
	case stateNew, stateOurs:
		c.local = true
		return
	case stateAdopt:
		if err := writeStamp(state, c.stamp); err == nil {
			c.local = true
			return
		} else {
			why = fmt.Sprintf("cchub could not stamp it as yours: %v", err)
		}
	}
	dir, err := FallbackStateDir(r.dir)
	if err != nil {
		c.err = fmt.Errorf("workspace: %s here is not your cchub's state (%s), and %w", StateDir, why, err)
		return
	}
	c.dir = dir
	c.notice = fmt.Sprintf("%s here is not your cchub's state (%s); cchub ignores it, changes nothing in it, and keeps its state in %s. To keep the state in the workspace again, remove it: rm -rf %s (and first git rm -r --cached %s if git tracks it)",
		StateDir, why, dir, StateDir, StateDir)
}

type stateVerdict int

const (
	stateNew     stateVerdict = iota // no .cchub: cchub makes one, stamped
	stateOurs                        // stamped by this user for this path
	stateAdopt                       // this user's, unstamped, nothing git tracks: stamp it
	stateForeign                     // not this user's: ignore it
)

// stateFacts is what decides whether a .cchub is this user's.
type stateFacts struct {
	exists, symlink, dir bool
	uid, myUID           int    // uid -1: the system has no owners to compare
	stamped              bool   // it holds a StampFile
	stamp, want          string // the stamp it holds; this user's for this root
	empty                bool   // it holds nothing at all
	marker               bool   // it holds a JournalMarker
	// tracked asks git whether it tracks anything under .cchub; nil when
	// no one can ask, and then hasGit says whether git might.
	tracked TrackedFunc
	hasGit  bool
}

// decideState is the rule, with every fact given, so that what cannot be
// set up in a test (a directory another user owns) is tested here.
func decideState(f stateFacts) (stateVerdict, string) {
	switch {
	case !f.exists:
		return stateNew, ""
	case f.symlink:
		return stateForeign, "it is a symlink"
	case !f.dir:
		return stateForeign, "it is not a directory"
	case f.uid >= 0 && f.uid != f.myUID:
		return stateForeign, fmt.Sprintf("it belongs to uid %d", f.uid)
	case f.stamped && hmac.Equal([]byte(f.stamp), []byte(f.want)):
		return stateOurs, ""
	case f.stamped:
		return stateForeign, "its stamp is not yours for this path: it was copied, cloned or moved here"
	case f.empty:
		// Git cannot track an empty directory, and an empty one holds
		// nothing to obey: the only thing it can be is a cchub making it.
		return stateAdopt, ""
	case f.marker:
		return stateForeign, "it has no stamp of yours and holds an unfinished commit journal"
	}
	if f.tracked == nil {
		if f.hasGit {
			return stateForeign, "it has no stamp of yours, and cchub could not ask git whether it tracks it"
		}
		return stateAdopt, ""
	}
	tracked, err := f.tracked(StateDir)
	switch {
	case err != nil:
		return stateForeign, fmt.Sprintf("it has no stamp of yours, and git could not say whether it tracks it: %v", err)
	case tracked:
		return stateForeign, "git tracks it"
	}
	return stateAdopt, ""
}

// stateFacts reads what decideState needs of <root>/.cchub, and returns
// the directory's handle when it is a real one (the caller closes it).
func (r *Root) stateFacts(want string) (stateFacts, *os.Root, error) {
	f := stateFacts{want: want, uid: -1, myUID: os.Getuid(), tracked: r.tracked}
	if _, err := r.fsys.Lstat(".git"); err == nil {
		f.hasGit = true
	}
	st, err := r.fsys.Lstat(StateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil, nil
	}
	if err != nil {
		return f, nil, fmt.Errorf("workspace: %s: %w", StateDir, err)
	}
	f.exists = true
	f.symlink = st.Mode()&fs.ModeSymlink != 0
	f.dir = st.IsDir()
	if f.symlink || !f.dir {
		return f, nil, nil
	}
	state, err := r.fsys.OpenRoot(StateDir)
	if err != nil {
		return f, nil, fmt.Errorf("workspace: open %s: %w", StateDir, err)
	}
	// What was opened is what was looked at: not a symlink swapped in.
	here, err := state.Stat(".")
	if err != nil || !os.SameFile(st, here) {
		state.Close()
		f.symlink = true
		return f, nil, nil
	}
	if uid, ok := ownerUID(here); ok {
		f.uid = uid
	}
	if s, err := readStamp(state); err == nil {
		f.stamped, f.stamp = true, s
	} else if !errors.Is(err, fs.ErrNotExist) {
		f.stamped = true // a stamp that cannot be read is not this user's
	}
	if _, err := state.Lstat(JournalMarker); err == nil {
		f.marker = true
	}
	if d, err := state.Open("."); err == nil {
		names, _ := d.Readdirnames(1)
		d.Close()
		f.empty = len(names) == 0
	}
	return f, state, nil
}

// maxStamp bounds what is read of a stamp file: a stamp is 64 hex digits.
const maxStamp = 256

// readStamp reads dir's stamp, refusing anything but a small regular file.
func readStamp(dir *os.Root) (string, error) {
	st, err := dir.Lstat(StampFile)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > maxStamp {
		return "", fmt.Errorf("%s/%s is not a stamp", StateDir, StampFile)
	}
	data, err := dir.ReadFile(StampFile)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// writeStamp writes dir's stamp whole (a temporary file renamed over it),
// so a process reading it never sees half of one.
func writeStamp(dir *os.Root, stamp string) error {
	tmp := StampFile + ".new-" + randomHex(6)
	if err := dir.WriteFile(tmp, []byte(stamp+"\n"), 0o644); err != nil {
		return err
	}
	if err := dir.Rename(tmp, StampFile); err != nil {
		dir.Remove(tmp)
		return err
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// FallbackStateDir is the private directory (mode 0700) that keeps the
// state of the workspace at root (a real path) when its .cchub is not the
// user's: <base>/<16 hex of SHA-256 of root>, where base is
// $CCHUB_STATE_HOME, else state under $CCHUB_CONFIG_DIR when that is set,
// else cchub/state under the user cache directory. It is made if absent;
// one another user owns or others may write is refused.
func FallbackStateDir(root string) (string, error) {
	base := os.Getenv(EnvStateHome)
	if base == "" {
		if conf := os.Getenv(trust.EnvDir); conf != "" {
			base = filepath.Join(conf, "state")
		} else {
			cache, err := os.UserCacheDir()
			if err != nil {
				return "", fmt.Errorf("there is no user cache directory to keep it in (%v); set %s to a directory of your own", err, EnvStateHome)
			}
			base = filepath.Join(cache, "cchub", "state")
		}
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(base, hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("its replacement %s cannot be made: %w; set %s to a directory of your own", dir, err, EnvStateHome)
	}
	for _, d := range []string{base, dir} {
		st, err := os.Lstat(d)
		if err != nil {
			return "", err
		}
		if !st.IsDir() {
			return "", fmt.Errorf("its replacement's directory %s is not a directory; remove it or set %s", d, EnvStateHome)
		}
		if uid, ok := ownerUID(st); ok && uid != os.Getuid() {
			return "", fmt.Errorf("its replacement's directory %s belongs to uid %d, not to you; set %s to a directory of your own", d, uid, EnvStateHome)
		}
		if st.Mode().Perm()&0o022 != 0 {
			return "", fmt.Errorf("its replacement's directory %s may be written by others (mode %04o); run chmod go-w %s", d, st.Mode().Perm(), d)
		}
	}
	return dir, nil
}

// OpenStateDir opens the state directory's sub (sub may be "" for the
// state directory itself), creating it. The state directory is the
// workspace's .cchub when that is this user's (see the comment at the top
// of this file; made stamped, with a .gitignore of "*" so it never shows
// in git status, when absent), else the private FallbackStateDir.
// Everything cchub keeps is created and removed through the returned
// handle, which nothing in it can lead outside of; a sub that is a
// symlink, or not a directory, is refused rather than followed. The
// caller closes the handle.
func (r *Root) OpenStateDir(sub string) (*os.Root, error) {
	c := r.choice()
	if c.err != nil {
		return nil, c.err
	}
	var state *os.Root
	var err error
	if c.local {
		state, err = r.openLocalState(c.stamp)
	} else {
		state, err = os.OpenRoot(c.dir)
		if err != nil {
			err = fmt.Errorf("workspace: open the state directory %s: %w", c.dir, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if sub == "" {
		return state, nil
	}
	defer state.Close()
	return openRealDir(state, sub)
}

// openLocalState opens <root>/.cchub, making it stamped if absent, and
// checks it still is this user's: between the choice and now, something
// (a git checkout, another program) may have put another in its place.
func (r *Root) openLocalState(stamp string) (*os.Root, error) {
	top, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: open the root: %w", err)
	}
	defer top.Close()
	if _, err := top.Lstat(StateDir); errors.Is(err, fs.ErrNotExist) {
		if err := makeStateDir(top, stamp); err != nil {
			return nil, err
		}
	}
	state, err := openRealDir(top, StateDir)
	if err != nil {
		return nil, err
	}
	here, err := state.Stat(".")
	if err == nil {
		if uid, ok := ownerUID(here); ok && uid != os.Getuid() {
			err = fmt.Errorf("it belongs to uid %d", uid)
		}
	}
	if err == nil {
		var s string
		if s, err = readStamp(state); err == nil && !hmac.Equal([]byte(s), []byte(stamp)) {
			err = errors.New("its stamp is not yours")
		}
	}
	if err != nil {
		state.Close()
		return nil, fmt.Errorf("workspace: %s was replaced since cchub started (%v); cchub changes nothing in it: run the command again", StateDir, err)
	}
	if _, err := state.Lstat(".gitignore"); errors.Is(err, fs.ErrNotExist) {
		if err := state.WriteFile(".gitignore", []byte("*\n"), 0o644); err != nil {
			state.Close()
			return nil, fmt.Errorf("workspace: %s/.gitignore: %w", StateDir, err)
		}
	}
	return state, nil
}

// makeStateDir makes .cchub whole: a directory beside it gets the stamp
// and the .gitignore, then is renamed into place, so no process ever sees
// a .cchub of cchub's without its stamp. If another process made one
// first, that one stays.
func makeStateDir(top *os.Root, stamp string) error {
	tmp := StateDir + ".new-" + randomHex(6)
	if err := top.Mkdir(tmp, 0o755); err != nil {
		return fmt.Errorf("workspace: create %s: %w", StateDir, err)
	}
	d, err := top.OpenRoot(tmp)
	if err == nil {
		err = writeStamp(d, stamp)
		if err == nil {
			err = d.WriteFile(".gitignore", []byte("*\n"), 0o644)
		}
		d.Close()
	}
	if err == nil {
		if _, lerr := top.Lstat(StateDir); lerr == nil {
			err = fs.ErrExist // never rename over anything, even an empty directory
		} else {
			err = top.Rename(tmp, StateDir)
		}
	}
	if err != nil {
		top.RemoveAll(tmp)
		if _, lerr := top.Lstat(StateDir); lerr == nil {
			return nil // another process made it: its turn to be checked
		}
		return fmt.Errorf("workspace: create %s: %w", StateDir, err)
	}
	return nil
}

// openRealDir opens (making it if absent) the directory name in parent,
// refusing one that is a symlink or no directory.
func openRealDir(parent *os.Root, name string) (*os.Root, error) {
	show := filepath.Join(StateDir, name)
	if name == StateDir {
		show = StateDir
	}
	st, err := parent.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("workspace: create %s: %w", show, err)
		}
		st, err = parent.Lstat(name)
	}
	if err != nil {
		return nil, fmt.Errorf("workspace: %s: %w", show, err)
	}
	if !st.IsDir() {
		what := "is not a directory"
		if st.Mode()&fs.ModeSymlink != 0 {
			what = "is a symlink"
		}
		return nil, fmt.Errorf("workspace: %s %s; cchub keeps its state only in a real directory: remove it (it holds nothing but caches)", show, what)
	}
	d, err := parent.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", show, err)
	}
	if here, err := d.Stat("."); err != nil || !os.SameFile(st, here) {
		d.Close()
		return nil, fmt.Errorf("workspace: %s was replaced while cchub opened it; run the command again", show)
	}
	return d, nil
}
