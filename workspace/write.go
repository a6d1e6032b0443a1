package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"cchub/textfmt"
)

// Errors that writes wrap, so callers can tell a user what to do instead.
var (
	ErrReadOnly  = errors.New("read-only")
	ErrProtected = errors.New("protected path")
)

// Limits of the file systems cchub runs on: a longer name or path would be
// refused by the kernel after directories had been made for it.
const (
	maxNameBytes = 255
	maxPathBytes = 4095
)

// Written is one file a change wrote or removed, as the change read and
// wrote it under the file's lock: Old is the content it was checked
// against and made from (nil: the file did not exist, or was too large
// to keep), New what was written (nil: the file was removed; non-nil,
// possibly empty, otherwise). Changes return it for the caller's next
// step (the hub tells the language servers), so nobody reads the file
// again for it.
type Written struct {
	Path string
	Old  []byte
	New  []byte
}

// WriteFile replaces or creates the regular file at rel with data and
// returns the directories it had to create, outermost first (nothing is
// left behind when it fails). What the file was is kept:
//   - a symlink inside the root: its target is written, the link stays;
//   - a file with several hard links: written in place, so every name
//     still shows the same content;
//   - otherwise replaced atomically (temporary file beside it, fsync,
//     rename), with its owner, group and every mode bit (setuid, setgid,
//     sticky) carried over.
//
// A new file gets perm. A read-only file, a path under .git/ or .cchub/,
// and anything that is not a regular file are refused with the reason.
func (r *Root) WriteFile(rel string, data []byte, perm fs.FileMode) (made []string, err error) {
	target, err := r.writeTarget(rel)
	if err != nil {
		return nil, err
	}
	dir, base := parentOf(target)
	made, err = r.makeParents(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			r.removeMade(made)
			made = nil
		}
	}()
	parent, err := r.openWritableDir(dir, target)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	st, err := parent.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return made, replaceIn(parent, base, data, perm, nil)
	case err != nil:
		return nil, err
	}
	if err := checkReplaceable(target, st); err != nil {
		return nil, err
	}
	// Opening for writing is the one honest test of permission (it also
	// sees ACLs and read-only mounts); O_NOFOLLOW keeps a link swapped in
	// since the Lstat from being written through.
	f, err := parent.OpenFile(base, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%w: %s cannot be opened for writing (%v); make it writable first if it should change", ErrReadOnly, target, err)
		}
		return nil, err
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(fst, st) {
		return nil, fmt.Errorf("%s changed while it was being written; nothing was written, try again", target)
	}
	if linksOf(st) > 1 {
		// Written in place, the content reaches every name of the file:
		// one of them must not be inside .git or the state directory (a
		// hard link a tarball or another process made; git makes none).
		if name := r.linkedIntoProtected(st); name != "" {
			return nil, protectedError(target+" is a hard link of "+name+", inside "+protectedIn(name), protectedIn(name))
		}
		return made, writeInPlace(f, data)
	}
	return made, replaceIn(parent, base, data, st.Mode(), f)
}

// writeTarget checks rel as a path to write and follows a final symlink
// (inside the root) to the file it names, checking each file it names.
func (r *Root) writeTarget(rel string) (string, error) {
	if err := r.checkWrite(rel); err != nil {
		return "", err
	}
	target := rel
	for hops := 0; ; hops++ {
		st, err := r.Lstat(target)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return target, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", rel)
		}
		link, err := r.Readlink(target)
		if err != nil {
			return "", err
		}
		next, err := r.linkTarget(target, link)
		if err != nil {
			return "", fmt.Errorf("%s is a symlink to %s, which %w %s; edit a file inside the root", rel, link, ErrOutsideRoot, r.dir)
		}
		if err := r.checkWrite(next); err != nil {
			return "", fmt.Errorf("%s is a symlink to %s: %w", rel, next, err)
		}
		target = next
	}
}

// linkTarget is the root-relative path a symlink at rel pointing to link
// names, or an error if it leads out of the root.
func (r *Root) linkTarget(rel, link string) (string, error) {
	var p string
	if filepath.IsAbs(link) {
		abs := filepath.Clean(link)
		if !Within(r.dir, abs) {
			return "", ErrOutsideRoot
		}
		p = r.Rel(abs)
	} else {
		dir, _ := parentOf(rel)
		p = path.Join(dir, filepath.ToSlash(link))
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", ErrOutsideRoot
	}
	return p, nil
}

// checkWritablePath refuses what cchub will not write, before anything is
// made for it: the root itself, names the file system cannot hold, and the
// repository's and cchub's own state. Git runs what .git/hooks holds and
// obeys what .git/config says, so a file planted there would run code the
// next time anyone commits.
func checkWritablePath(rel string) error {
	if rel == "." || rel == "" {
		return fmt.Errorf("the workspace root is a directory; give a file path")
	}
	if len(rel) > maxPathBytes {
		return fmt.Errorf("path of %s bytes is longer than the file system allows (%s); give a shorter path", textfmt.Thousands(len(rel)), textfmt.Thousands(maxPathBytes))
	}
	for _, c := range strings.Split(rel, "/") {
		if len(c) > maxNameBytes {
			return fmt.Errorf("a name in %s is %s bytes, longer than the file system allows (%d); give a shorter name", ShowArg(rel), textfmt.Thousands(len(c)), maxNameBytes)
		}
	}
	if name := protectedIn(rel); name != "" {
		return protectedError(rel+" is inside "+name, name)
	}
	return nil
}

// maxProtectedScan bounds how many entries linkedIntoProtected looks at.
const maxProtectedScan = 20000

// linkedIntoProtected names a file inside .git or the state directory that
// is the same file as st (another hard link of it), or "" when there is
// none among the first maxProtectedScan entries (git's objects, written
// read-only and never run, are not looked at).
func (r *Root) linkedIntoProtected(st fs.FileInfo) string {
	seen := 0
	var walk func(dir string) string
	walk = func(dir string) string {
		entries, err := r.ReadDir(dir)
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if seen++; seen > maxProtectedScan {
				return ""
			}
			p := dir + "/" + e.Name()
			switch {
			case e.IsDir():
				if p == ".git/objects" || p == ".git/lfs" {
					continue
				}
				if found := walk(p); found != "" {
					return found
				}
			case e.Type().IsRegular():
				if fst, err := r.Lstat(p); err == nil && os.SameFile(fst, st) {
					return p
				}
			}
		}
		return ""
	}
	for _, top := range []string{".git", StateDir} {
		if found := walk(top); found != "" {
			return found
		}
	}
	return ""
}

// protectedIn names the protected directory (".git" or StateDir) that a
// component of rel is, compared without case: on a case-folding file
// system ".GIT" is the same directory.
func protectedIn(rel string) string {
	for _, c := range strings.Split(rel, "/") {
		switch {
		case strings.EqualFold(c, ".git"):
			return ".git"
		case strings.EqualFold(c, StateDir):
			return StateDir
		}
	}
	return ""
}

// protectedError is the refusal of a change inside name (".git" or
// StateDir); where says how the path is inside it.
func protectedError(where, name string) error {
	if name == ".git" {
		return fmt.Errorf("%w: %s, which cchub does not write (git runs its hooks and obeys its config); use git itself for repository changes", ErrProtected, where)
	}
	return fmt.Errorf("%w: %s, cchub's own state, which is not a workspace file; give a path outside it", ErrProtected, where)
}

// checkWrite is the check of every change at rel before anything is made
// for it: the path as given (checkWritablePath) and the place it resolves
// to once the symlinks of its directories are followed, as git refuses a
// path "beyond a symbolic link". A final symlink is not followed here:
// a write follows it by name (writeTarget) and checks where it leads; a
// rename or delete replaces the link itself. What is checked here gives
// the message; openWritableDir checks again, on the directory actually
// opened, so a symlink swapped in between is still refused.
func (r *Root) checkWrite(rel string) error {
	if err := checkWritablePath(rel); err != nil {
		return err
	}
	dir, base := parentOf(rel)
	real, err := evalExisting(filepath.Join(r.dir, native(dir)))
	if err != nil || !Within(r.dir, real) {
		return nil // the open through the root's handle refuses it, with its reason
	}
	resolved := path.Join(r.Rel(real), base)
	if name := protectedIn(resolved); name != "" {
		return protectedError(fmt.Sprintf("%s resolves to %s, inside %s", rel, resolved, name), name)
	}
	return nil
}

// afterCheck, when set (by tests), runs between the check of a path and
// the opening of its directory: a symlink swapped in there must still be
// refused.
var afterCheck func(rel string)

// openWritableDir opens dir, the directory a change to file is made in,
// through the root's handle, and refuses it when it is, or lies inside, a
// .git or StateDir directory of the workspace. The test is made on the
// directory opened, by identity, walking up from it to the root: whatever
// symlinks led there, and whatever was swapped since checkWrite, the
// directory written into is the one tested.
func (r *Root) openWritableDir(dir, file string) (*os.Root, error) {
	if afterCheck != nil {
		afterCheck(file)
	}
	parent, err := inRoot(r, dir, r.fsys.OpenRoot)
	if err != nil {
		return nil, err
	}
	if err := r.checkOpenedDir(parent, dir, file); err != nil {
		parent.Close()
		return nil, err
	}
	return parent, nil
}

// checkOpenedDir refuses parent (opened as dir) if it is a protected
// directory or inside one.
func (r *Root) checkOpenedDir(parent *os.Root, dir, file string) error {
	pst, err := parent.Stat(".")
	if err != nil {
		return err
	}
	// A second descriptor of the same directory, one that can be walked
	// up from (os.Root gives none); the same inode makes it the same
	// directory, as directories have no hard links.
	d, err := r.OpenFile(dir, walkFlag|syscall.O_DIRECTORY, 0)
	if err == nil {
		var dst fs.FileInfo
		if dst, err = d.Stat(); err == nil && !os.SameFile(pst, dst) {
			err = fmt.Errorf("%s changed while %s was being written; nothing was written, try again", ShowArg(dir), file)
		}
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		return fmt.Errorf("%s: cannot check where its directory lies (%w); nothing was written", file, err)
	}
	defer d.Close()
	rst, err := r.fsys.Stat(".")
	if err != nil {
		return err
	}
	name, err := protectedDir(d, rst)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing was written", file, err)
	}
	if name != "" {
		return protectedError(fmt.Sprintf("%s would be written in %s or a directory inside it (reached through a symbolic link)", file, name), name)
	}
	return nil
}

// CheckFilePath refuses, in words, a path given for a file that names a
// directory by its trailing slash ("newdir/"), before it is resolved.
func CheckFilePath(p string) error {
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
		return fmt.Errorf("%s ends in a slash, so it names a directory; give the path of a file inside it", ShowArg(p))
	}
	return nil
}

// checkReplaceable refuses what an existing file must not be replaced as.
func checkReplaceable(rel string, st fs.FileInfo) error {
	switch {
	case st.IsDir():
		return fmt.Errorf("%s is a directory; give a file path", rel)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is a %s, not a regular file; cchub reads and writes only regular files", rel, kindOf(st.Mode()))
	case st.Mode().Perm()&0o222 == 0:
		return fmt.Errorf("%w: %s is read-only (mode %04o); make it writable first (chmod u+w) if it should change", ErrReadOnly, rel, st.Mode().Perm())
	}
	return nil
}

// makeParents creates the missing directories of dir, one at a time, each
// in a parent opened and checked by openWritableDir, and returns those it
// made.
func (r *Root) makeParents(dir string) ([]string, error) {
	if dir == "." {
		return nil, nil
	}
	var made []string
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		st, err := r.Stat(p)
		if err == nil {
			if !st.IsDir() {
				r.removeMade(made)
				return nil, fmt.Errorf("%s is a file, so nothing can be created under it; give another path", p)
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			r.removeMade(made)
			return nil, err
		}
		if err := r.mkdirChecked(p); err != nil && !errors.Is(err, fs.ErrExist) {
			r.removeMade(made)
			return nil, err
		}
		made = append(made, p)
	}
	return made, nil
}

// RemoveDirs removes the directories a write made (as WriteFile returned
// them), innermost first, if they are empty: undoing a write leaves no
// empty directories behind.
func (r *Root) RemoveDirs(made []string) { r.removeMade(made) }

func (r *Root) removeMade(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		r.removeChecked(made[i])
	}
}

// mkdirChecked makes the directory rel in its checked parent.
func (r *Root) mkdirChecked(rel string) error {
	dir, base := parentOf(rel)
	parent, err := r.openWritableDir(dir, rel)
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.Mkdir(base, 0o755)
}

// removeChecked removes the file, symlink or empty directory rel from its
// checked parent.
func (r *Root) removeChecked(rel string) error {
	dir, base := parentOf(rel)
	parent, err := r.openWritableDir(dir, rel)
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.Remove(base)
}

// RemoveFile deletes the file at rel (a symlink itself, not its target).
func (r *Root) RemoveFile(rel string) error {
	if err := r.checkWrite(rel); err != nil {
		return err
	}
	st, err := r.Lstat(rel)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory; cchub deletes files only", rel)
	}
	return r.removeChecked(rel)
}

// replaceIn writes data to a new temporary file in parent and renames it
// over base. When old (the file being replaced) is given, the new file
// takes its owner and mode; if the owner cannot be kept (only root may give
// a file away), old is written in place instead, so the owner stays.
func replaceIn(parent *os.Root, base string, data []byte, mode fs.FileMode, old *os.File) error {
	tmpName, tmp, err := createTemp(parent, base)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			parent.Remove(tmpName)
		}
	}()
	if old != nil {
		if keep, err := keepOwner(tmp, old); err != nil {
			return err
		} else if !keep {
			return writeInPlace(old, data)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	// After chown, which clears setuid and setgid.
	if err := tmp.Chmod(mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := parent.Rename(tmpName, base); err != nil {
		return err
	}
	ok = true
	if d, err := parent.Open("."); err == nil {
		d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}

// createTemp makes a new file beside base, named after it but short enough
// that a long base name still leaves room.
func createTemp(parent *os.Root, base string) (string, *os.File, error) {
	stem := base
	if len(stem) > 100 {
		cut := 100
		for cut > 0 && !isRuneStart(stem[cut]) {
			cut--
		}
		stem = stem[:cut]
	}
	for range 10 {
		var rnd [4]byte
		rand.Read(rnd[:])
		name := "." + stem + ".cchub-" + hex.EncodeToString(rnd[:])
		f, err := parent.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("cannot create a temporary file beside %s", base)
}

// writeInPlace overwrites f's content with data: the file keeps its inode,
// so its hard links, owner and mode stay as they were.
func writeInPlace(f *os.File, data []byte) error {
	if _, err := f.WriteAt(data, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return err
	}
	return f.Sync()
}

// ReadText reads the file at rel and returns its bytes if they are text a
// model can use.
func (r *Root) ReadText(rel string) ([]byte, error) {
	data, err := r.ReadInto(rel, nil, MaxFileBytes)
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%w; use grep to find the lines you need, then read with offset/limit", err)
	}
	if err != nil {
		return nil, err
	}
	return data, classifyText(rel, data)
}

// StatWritable stats the file a write would replace: nil info when it does
// not exist, an error when it is a directory or not a regular file (a
// named pipe or a device would block or never end when read or replaced).
func (r *Root) StatWritable(rel string) (fs.FileInfo, error) {
	st, err := r.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory; give a file path", rel)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is a %s, not a regular file; cchub reads and writes only regular files", rel, kindOf(st.Mode()))
	}
	return st, nil
}
