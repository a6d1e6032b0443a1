package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// A Listing is one walk of the whole root kept for later calls: every
// directory and file the walk visited, in its order, with each file's
// lstat as it was then. A long-lived process whose Watcher vouches that
// nothing changed since (the hub: every change it hands over either
// marks a file for a fresh stat, Refresh, or ends the Listing) walks it
// instead of the disk, with no system call per file: grep with a token
// index then reads only the files that can match.
//
// A Listing is never changed once made: Refresh makes another.
type Listing struct {
	entries []listed
	at      map[string]int32 // entries' index by path
	exclude excludeState     // .git/info/exclude, which no watcher sees
}

type listed struct {
	rel  string
	id   Identity    // a file's; zero for a directory
	mode fs.FileMode // lstat's mode; fs.ModeDir for a directory
}

// excludeState is what a Listing knew of .git/info/exclude: whether it
// was there, and its Identity, settled as of the walk (a file changed
// within RacyWindow of it is never current).
type excludeState struct {
	id    Identity
	there bool
}

// ErrNotListable says a root cannot be kept as a Listing: some directory
// in it could not be read, so a later walk might see what this one did
// not (permissions change without an event a watcher reports).
var ErrNotListable = errors.New("workspace: a directory could not be listed")

// List walks the whole root (as Walk does) and keeps what it visited.
func (r *Root) List(ctx context.Context) (*Listing, error) {
	start := time.Now()
	l := &Listing{at: map[string]int32{}, exclude: r.excludeState()}
	l.exclude.id = l.exclude.id.Settled(start)
	var bad error
	err := r.WalkReporting(ctx, ".", func(rel string, d fs.DirEntry) error {
		e := listed{rel: rel, mode: fs.ModeDir}
		if !d.IsDir() {
			info, err := d.Info()
			if err != nil {
				// Gone since the directory was read: a change the
				// watcher reports, so this Listing will not be kept.
				return nil
			}
			e.id, e.mode = IdentityOf(info), info.Mode()
		}
		l.at[rel] = int32(len(l.entries))
		l.entries = append(l.entries, e)
		return nil
	}, func(rel string, err error) {
		if bad == nil {
			bad = fmt.Errorf("%w: %s: %v", ErrNotListable, rel, err)
		}
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (r *Root) excludeState() excludeState {
	st, err := r.Lstat(".git/info/exclude")
	if err != nil {
		return excludeState{}
	}
	return excludeState{id: IdentityOf(st), there: true}
}

// Dirs calls fn with every directory of the Listing, in walk order.
func (l *Listing) Dirs(fn func(rel string)) {
	for _, e := range l.entries {
		if e.mode.IsDir() {
			fn(e.rel)
		}
	}
}

// Lists says whether rel is in the Listing, and whether as a directory.
func (l *Listing) Lists(rel string) (listed, isDir bool) {
	i, ok := l.at[rel]
	return ok, ok && l.entries[i].mode.IsDir()
}

// Current says whether what the Listing cannot hear of through a watcher
// is as it was: .git/info/exclude, which decides what the walk skips.
func (l *Listing) Current(r *Root) bool {
	now := r.excludeState()
	return now.there == l.exclude.there && (!now.there || l.exclude.id.Same(now.id))
}

// Refresh is a copy of the Listing with the files rels (changed since,
// as a watcher said) stat'ed again; false when one of them is no longer
// a file the walk would visit as it did (gone, or become a directory or a
// symlink), and only a new walk can say what is there.
func (l *Listing) Refresh(r *Root, rels []string) (*Listing, bool) {
	n := &Listing{entries: l.entries, at: l.at, exclude: l.exclude}
	copied := false
	for _, rel := range rels {
		i, ok := l.at[rel]
		if !ok || l.entries[i].mode.IsDir() {
			return nil, false
		}
		st, err := r.Lstat(rel)
		if err != nil || st.Mode().Type() != l.entries[i].mode.Type() || st.Mode().Type()&fs.ModeSymlink != 0 {
			return nil, false
		}
		if !copied {
			n.entries = append([]listed(nil), l.entries...)
			copied = true
		}
		n.entries[i].id, n.entries[i].mode = IdentityOf(st), st.Mode()
	}
	return n, true
}

// WalkHeld visits, as Root.WalkHeld does, start (a directory, relative
// to the root) and everything the Listing holds below it, in walk order;
// a file's entry answers Info from the Listing's stat, with no system
// call, and no directory is held (OpenReadAt opens from the root). It
// says false, having visited nothing, when start is not a directory of
// the Listing: the caller walks the disk.
func (l *Listing) WalkHeld(ctx context.Context, start string, fn HeldWalkFunc) (bool, error) {
	i, ok := l.at[start]
	if !ok || !l.entries[i].mode.IsDir() {
		return false, nil
	}
	prefix := start + "/"
	if start == "." {
		prefix = ""
	}
	skip := ""
	for j := int(i); j < len(l.entries); j++ {
		e := &l.entries[j]
		if j > int(i) && !strings.HasPrefix(e.rel, prefix) {
			break // the walk has left start's subtree
		}
		if skip != "" && strings.HasPrefix(e.rel, skip) {
			continue
		}
		if j&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		err := fn(e.rel, listedEntry{e}, nil)
		switch {
		case err == nil:
		case errors.Is(err, fs.SkipDir):
			// As the disk's walk: a directory's subtree is skipped, and
			// for a file it means nothing more than nil.
			if j == int(i) {
				return true, nil
			}
			if e.mode.IsDir() {
				skip = e.rel + "/"
			}
		case errors.Is(err, fs.SkipAll):
			return true, nil
		default:
			return true, err
		}
	}
	return true, nil
}

// WalkListed walks start in l where l holds it as a directory (l may be
// nil), else on the disk as WalkHeld does.
func (r *Root) WalkListed(ctx context.Context, l *Listing, start string, fn HeldWalkFunc, unreadable func(rel string, err error)) error {
	if l != nil {
		if listed, err := l.WalkHeld(ctx, start, fn); listed {
			return err
		}
	}
	return r.WalkHeld(ctx, start, fn, unreadable)
}

// listedEntry is a Listing's entry as a fs.DirEntry and fs.FileInfo.
type listedEntry struct{ e *listed }

func (d listedEntry) Name() string               { return path.Base(d.e.rel) }
func (d listedEntry) IsDir() bool                { return d.e.mode.IsDir() }
func (d listedEntry) Type() fs.FileMode          { return d.e.mode.Type() }
func (d listedEntry) Info() (fs.FileInfo, error) { return d, nil }
func (d listedEntry) Size() int64                { return d.e.id.Size }
func (d listedEntry) Mode() fs.FileMode          { return d.e.mode }
func (d listedEntry) ModTime() time.Time         { return time.Unix(0, d.e.id.MTime) }
func (d listedEntry) Sys() any                   { return nil } // IdentityOf knows the entry
