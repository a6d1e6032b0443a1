package workspace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// SkipDir, returned by a WalkFunc for a directory, skips that directory.
var SkipDir = fs.SkipDir

// WalkFunc is called for every file and directory that is not ignored, with
// the path relative to the root (slash-separated) and its entry.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits start (relative or absolute inside the root) and everything
// below it in lexical order, skipping .git, .cchub and whatever the
// .gitignore files (the root's, nested ones, and .git/info/exclude) ignore.
// Symlinked directories are not followed; symlinked files are reported only
// when they resolve inside the root. A directory that cannot be listed is
// visited but not entered; WalkReporting says which ones those were.
func (r *Root) Walk(ctx context.Context, start string, fn WalkFunc) error {
	return r.WalkReporting(ctx, start, fn, nil)
}

// WalkReporting is Walk that also calls unreadable (if not nil) for every
// directory it visited but could not list, with its path relative to the
// root and the error, so that a result can say what it did not see instead
// of passing over it in silence. unreadable is called from the walking
// goroutine, in walk order.
func (r *Root) WalkReporting(ctx context.Context, start string, fn WalkFunc, unreadable func(rel string, err error)) error {
	return r.WalkHeld(ctx, start, func(rel string, d fs.DirEntry, _ *Dir) error { return fn(rel, d) }, unreadable)
}

// WalkHeld is WalkReporting that holds each directory open while its
// entries are visited, and gives it with each file: OpenReadAt opens the
// file relative to it.
func (r *Root) WalkHeld(ctx context.Context, start string, fn HeldWalkFunc, unreadable func(rel string, err error)) error {
	abs, rel, err := r.Resolve(start)
	if err != nil {
		return err
	}
	st, err := r.Stat(rel)
	if err != nil {
		return err
	}
	var pats []gitignore.Pattern
	pats = append(pats, r.readIgnoreFile(".git/info/exclude", nil)...)
	// The .gitignore files of start's ancestors apply too; start's own is
	// read when walkDir enters it.
	comps := splitRel(rel)
	for i := 0; i < len(comps); i++ {
		dom := comps[:i]
		pats = append(pats, r.readIgnoreFile(path.Join(append(dom[:len(dom):len(dom)], ".gitignore")...), dom)...)
	}
	if !st.IsDir() {
		if ignoredBy(pats, comps, false) {
			return nil
		}
		return fn(rel, fs.FileInfoToDirEntry(st), nil)
	}
	if rel != "." {
		if ignoredBy(pats, comps, true) {
			return nil
		}
	}
	w := walker{root: r, fn: fn, unreadable: unreadable}
	err = w.dir(ctx, abs, comps, pats, nil)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

type walker struct {
	root       *Root
	fn         HeldWalkFunc
	unreadable func(rel string, err error)
}

// dir walks the directory abs (comps, relative to the root), listed as
// an entry of parent (nil for the walk's start).
func (w *walker) dir(ctx context.Context, abs string, comps []string, pats []gitignore.Pattern, parent *Dir) error {
	r, fn := w.root, w.fn
	if err := ctx.Err(); err != nil {
		return err
	}
	rel := strings.Join(comps, "/")
	if rel == "" {
		rel = "."
	}
	if err := fn(rel, fs.FileInfoToDirEntry(dirInfo{abs}), nil); err != nil {
		if errors.Is(err, fs.SkipDir) {
			return nil
		}
		return err
	}
	var entries []fs.DirEntry
	var held *Dir
	var err error
	if parent == nil {
		entries, held, err = r.readDirHeld(rel)
	} else {
		entries, held, err = r.readDirAt(parent, comps[len(comps)-1], rel, abs)
	}
	defer held.Release()
	if err != nil && w.unreadable != nil {
		// Skipped, as git does, but said: the caller's result is
		// incomplete. Entries read before the error are still walked.
		w.unreadable(rel, err)
	}
	// The directory's own .gitignore, when its listing has one (or the
	// listing failed part way): most directories have none, and an open
	// that fails costs as much as one that succeeds.
	if err != nil || slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" }) {
		pats = append(pats[:len(pats):len(pats)], r.readIgnoreFile(path.Join(rel, ".gitignore"), comps)...)
	}
	// One slice for every child's components: ignoredBy keeps none, and
	// a directory walked below copies its own before it appends.
	child := append(comps[:len(comps):len(comps)], "")
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || name == StateDir || len(comps) == 0 && strings.HasPrefix(name, StateDir+".new-") {
			continue // a state directory being made (state.go) is state too
		}
		child[len(comps)] = name
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			// Followed through the root's handle: a link that leads out
			// is an error here, and skipped.
			if st, err := r.Stat(path.Join(rel, name)); err != nil || st.IsDir() {
				continue // symlinked directories are not followed
			}
		}
		if ignoredBy(pats, child, isDir) {
			continue
		}
		if isDir {
			if err := w.dir(ctx, filepath.Join(abs, name), child, pats, held); err != nil {
				return err
			}
			continue
		}
		p := name
		if rel != "." {
			p = rel + "/" + name
		}
		if err := fn(p, heldEntry(e, held), held); err != nil {
			if errors.Is(err, fs.SkipDir) {
				continue
			}
			return err
		}
	}
	return nil
}

// dirInfo lets a directory be reported without a second stat per entry.
type dirInfo struct{ abs string }

func (d dirInfo) Name() string { return filepath.Base(d.abs) }
func (d dirInfo) Size() int64  { return 0 }
func (d dirInfo) Mode() fs.FileMode {
	return fs.ModeDir | 0o755
}
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

func ignoredBy(pats []gitignore.Pattern, path []string, isDir bool) bool {
	// Last matching pattern wins, as in git.
	for i := len(pats) - 1; i >= 0; i-- {
		switch pats[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

func (r *Root) readIgnoreFile(rel string, domain []string) []gitignore.Pattern {
	f, _, err := r.OpenRegular(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	dom := append([]string(nil), domain...)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, dom))
	}
	return ps
}

// UnreadableDir is a directory a walk could not list.
type UnreadableDir struct {
	Path   string `json:"path"`   // relative to the root, slash-separated
	Reason string `json:"reason"` // the system's word for it: "permission denied"
}

// UnreadableDirs collects what WalkReporting reports, for a result; its Add
// is the unreadable callback.
type UnreadableDirs []UnreadableDir

// Add records rel as unreadable for err.
func (u *UnreadableDirs) Add(rel string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	*u = append(*u, UnreadableDir{Path: rel, Reason: err.Error()})
}

// Note is a line for a result's text, or "" when every directory was read:
//
//	[could not read 2 directories: secret/ (permission denied), tmp/x/ (file name too long); their files were not searched]
//
// consequence finishes the sentence ("their files were not searched"); at
// most five directories are named.
func (u UnreadableDirs) Note(consequence string) string {
	if len(u) == 0 {
		return ""
	}
	var b strings.Builder
	if len(u) == 1 {
		b.WriteString("[could not read 1 directory: ")
	} else {
		fmt.Fprintf(&b, "[could not read %d directories: ", len(u))
	}
	for i, d := range u {
		if i == 5 {
			fmt.Fprintf(&b, ", and %d more", len(u)-5)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		name := d.Path + "/"
		if d.Path == "." {
			name = "the workspace root"
		}
		fmt.Fprintf(&b, "%s (%s)", name, d.Reason)
	}
	b.WriteString("; " + consequence + "]\n")
	return b.String()
}
