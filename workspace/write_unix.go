//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// linksOf is the number of hard links of the file st describes.
func linksOf(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// keepOwner gives tmp the owner and group of old, and reports false when
// that is not allowed (only root may give a file to another user): the
// caller then keeps old's inode instead of replacing it.
func keepOwner(tmp, old *os.File) (bool, error) {
	ost, err := old.Stat()
	if err != nil {
		return false, err
	}
	tst, err := tmp.Stat()
	if err != nil {
		return false, err
	}
	o, ok1 := ost.Sys().(*syscall.Stat_t)
	t, ok2 := tst.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 || (o.Uid == t.Uid && o.Gid == t.Gid) {
		return true, nil
	}
	err = tmp.Chown(int(o.Uid), int(o.Gid))
	if errors.Is(err, fs.ErrPermission) {
		return false, nil
	}
	return err == nil, err
}

// protectedDir names the protected directory (".git" or StateDir) that d
// is or lies inside, or "" if none; root is the workspace root's metadata.
// It walks up from d to the root one ".." at a time, through descriptors,
// and at each step stats the parent's .git and StateDir (following a
// symlink: git follows a .git that is one) and compares them with the
// child by device and inode. So a directory is judged by what it is, not
// by the names that led to it: a symlink, a swapped directory or a name
// that folds to ".git" on a case-insensitive file system all end at the
// same inode. A directory the walk leads out of the root from (moved
// outside since it was opened) is refused.
func protectedDir(d *os.File, root fs.FileInfo) (string, error) {
	rs, ok := root.Sys().(*syscall.Stat_t)
	if !ok {
		return "", errors.New("the root's identity is unknown")
	}
	cur, err := unix.Dup(int(d.Fd()))
	if err != nil {
		return "", err
	}
	defer func() { unix.Close(cur) }()
	var st unix.Stat_t
	if err := unix.Fstat(cur, &st); err != nil {
		return "", err
	}
	// No directory tree is deeper than a path can be long.
	for range maxPathBytes/2 + 2 {
		if uint64(st.Dev) == uint64(rs.Dev) && uint64(st.Ino) == uint64(rs.Ino) {
			return "", nil
		}
		up, err := openat(cur, "..", walkFlag|unix.O_DIRECTORY|unix.O_CLOEXEC)
		if err != nil {
			return "", fmt.Errorf("walking up to the workspace root: %w", err)
		}
		unix.Close(cur)
		cur = up
		var ust unix.Stat_t
		if err := unix.Fstat(cur, &ust); err != nil {
			return "", err
		}
		if ust.Dev == st.Dev && ust.Ino == st.Ino {
			return "", errors.New("the directory is not inside the workspace root (it was moved out)")
		}
		for _, name := range []string{".git", StateDir} {
			var pst unix.Stat_t
			if fstatat(cur, name, &pst) == nil && pst.Dev == st.Dev && pst.Ino == st.Ino {
				return name, nil
			}
		}
		st = ust
	}
	return "", errors.New("the directory is nested too deep to be inside the workspace root")
}

func openat(dir int, name string, flag int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flag, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func fstatat(dir int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dir, name, st, 0)
		if err != unix.EINTR {
			return err
		}
	}
}
