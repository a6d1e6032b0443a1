package workspace

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
// when they resolve inside the root.
func (r *Root) Walk(ctx context.Context, start string, fn WalkFunc) error {
	abs, rel, err := r.Resolve(start)
	if err != nil {
		return err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return err
	}
	var pats []gitignore.Pattern
	pats = append(pats, readIgnoreFile(filepath.Join(r.dir, ".git", "info", "exclude"), nil)...)
	// The .gitignore files of start's ancestors apply too; start's own is
	// read when walkDir enters it.
	comps := splitRel(rel)
	for i := 0; i < len(comps); i++ {
		dom := comps[:i]
		pats = append(pats, readIgnoreFile(filepath.Join(r.dir, filepath.Join(dom...), ".gitignore"), dom)...)
	}
	if !st.IsDir() {
		if ignoredBy(pats, comps, false) {
			return nil
		}
		return fn(rel, fs.FileInfoToDirEntry(st))
	}
	if rel != "." {
		if ignoredBy(pats, comps, true) {
			return nil
		}
	}
	err = r.walkDir(ctx, abs, comps, pats, fn)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (r *Root) walkDir(ctx context.Context, abs string, comps []string, pats []gitignore.Pattern, fn WalkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rel := strings.Join(comps, "/")
	if rel == "" {
		rel = "."
	}
	pats = append(pats[:len(pats):len(pats)], readIgnoreFile(filepath.Join(abs, ".gitignore"), comps)...)
	if err := fn(rel, fs.FileInfoToDirEntry(dirInfo{abs})); err != nil {
		if errors.Is(err, fs.SkipDir) {
			return nil
		}
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil // unreadable directories are skipped, as git does
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || name == StateDir {
			continue
		}
		child := append(comps[:len(comps):len(comps)], name)
		childAbs := filepath.Join(abs, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(childAbs)
			if err != nil || !within(r.dir, real) {
				continue
			}
			if st, err := os.Stat(real); err != nil || st.IsDir() {
				continue // symlinked directories are not followed
			}
		}
		if ignoredBy(pats, child, isDir) {
			continue
		}
		if isDir {
			if err := r.walkDir(ctx, childAbs, child, pats, fn); err != nil {
				return err
			}
			continue
		}
		if err := fn(strings.Join(child, "/"), e); err != nil {
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

func readIgnoreFile(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
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
