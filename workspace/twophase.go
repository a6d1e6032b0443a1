package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// A two-phase write puts a file's new content in a temporary file beside
// it first (WriteTemp) and moves it into place later (RenameInto): a
// change to many files is written whole before any file changes, and an
// interrupted one can be finished or undone from the temporary files
// alone. The temporary file's name is known in advance (TempBeside), so
// a journal can record it before it exists.

// TempBeside is the temporary file a two-phase write of rel uses for the
// change tagged tag: hidden, in rel's directory (a rename never crosses
// file systems), named after rel, short enough for a long name.
func TempBeside(rel, tag string) string {
	dir, base := path.Split(rel)
	if len(base) > 100 {
		cut := 100
		for cut > 0 && !isRuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return dir + "." + base + ".cchub-" + tag
}

// WriteTarget is the file a write of rel changes: rel itself, or the file
// a final symlink at rel leads to inside the root. Paths cchub does not
// write (.git, its state) are refused, by name and by where they resolve,
// and so is a target whose directory exists and is one of them by
// identity; WriteTemp, RenameInto and RemoveSynced check again.
func (r *Root) WriteTarget(rel string) (string, error) {
	target, err := r.writeTarget(rel)
	if err != nil {
		return "", err
	}
	dir, _ := parentOf(target)
	// Any other failure (the directory is not made yet) is left to the
	// write, which checks each directory it makes or writes in.
	parent, err := r.openWritableDir(dir, target)
	if errors.Is(err, ErrProtected) {
		return "", err
	}
	if err == nil {
		parent.Close()
	}
	return target, nil
}

// WriteTemp writes data to temp (a name from TempBeside), synced to disk,
// with mode perm; a temp left by an earlier attempt is replaced. The
// directories temp needs are made and returned (a new file in a new
// directory).
func (r *Root) WriteTemp(temp string, data []byte, perm fs.FileMode) (made []string, err error) {
	if err := r.checkWrite(temp); err != nil {
		return nil, err
	}
	dir, base := parentOf(temp)
	made, err = r.makeParents(dir)
	if err != nil {
		return nil, err
	}
	parent, err := r.openWritableDir(dir, temp)
	if err != nil {
		r.removeMade(made)
		return nil, err
	}
	defer parent.Close()
	if err := parent.Remove(base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.removeMade(made)
		return nil, fmt.Errorf("remove the leftover temporary file %s: %w", temp, err)
	}
	f, err := parent.OpenFile(base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		r.removeMade(made)
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		parent.Remove(base)
		r.removeMade(made)
		return nil, fmt.Errorf("write %s: %w", temp, err)
	}
	return made, nil
}

// RenameInto moves temp over target (both in one directory). The rename
// survives a crash once the directory is synced (SyncDir): a caller
// renaming many files syncs each directory once, at the end.
func (r *Root) RenameInto(temp, target string) error {
	if err := r.checkWrite(target); err != nil {
		return err
	}
	if err := checkWritablePath(temp); err != nil {
		return err
	}
	dir, base := parentOf(target)
	tdir, tbase := parentOf(temp)
	if dir != tdir {
		return fmt.Errorf("workspace: %s and %s are not in one directory", temp, target)
	}
	parent, err := r.openWritableDir(dir, target)
	if err != nil {
		return err
	}
	defer parent.Close()
	return parent.Rename(tbase, base)
}

// SyncDir syncs the directory rel, so the renames and removals in it
// survive a crash.
func (r *Root) SyncDir(rel string) error {
	parent, err := inRoot(r, rel, r.fsys.OpenRoot)
	if err != nil {
		return err
	}
	defer parent.Close()
	return syncDir(parent)
}

// RemoveSynced deletes the file at rel, if it exists, and syncs its
// directory.
func (r *Root) RemoveSynced(rel string) error {
	if err := r.checkWrite(rel); err != nil {
		return err
	}
	dir, base := parentOf(rel)
	parent, err := r.openWritableDir(dir, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	if err := parent.Remove(base); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(parent)
}

func syncDir(parent *os.Root) error {
	d, err := parent.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
