//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a path another user owns, or that group or others
// may write: a trust record anyone can edit trusts anything.
func checkPrivate(p string, dir bool) error {
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	switch {
	case dir && !st.IsDir():
		return fmt.Errorf("trust: %s is not a directory; remove it", p)
	case !dir && !st.Mode().IsRegular():
		return fmt.Errorf("trust: %s is not a regular file; remove it", p)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("trust: %s belongs to user %d, not to you; cchub trusts only your own files there: remove it or set %s", p, sys.Uid, EnvDir)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("trust: %s may be written by others (mode %04o); run chmod go-w %s", p, st.Mode().Perm(), p)
	}
	return nil
}
