package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"time"
)

// LockWait is how long LockFiles waits for another process to finish with
// a file before it gives up and says so.
const LockWait = 30 * time.Second

// LockFiles takes an exclusive lock on each of the files rels (paths
// relative to the root), shared by every process that works on this
// workspace: two cchub servers, or a server and a CLI call, editing one
// file take turns, and each reads the file only after the other has
// written it. The locks are taken in one order, so two callers locking
// overlapping sets never deadlock. Each lock is a file under
// .cchub/locks/ named by a hash of the path its symlinks resolve to, held
// with flock(2): the kernel drops it when the holder exits, however it
// exits. The returned function releases them all.
func (r *Root) LockFiles(ctx context.Context, rels ...string) (unlock func(), err error) {
	dir, err := r.OpenStateDir("locks")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	keys := map[string]string{}
	for _, rel := range rels {
		keys[r.lockKey(rel)] = rel
	}
	var held []*os.File
	unlock = func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Close() // closing the descriptor drops its flock
		}
	}
	for _, k := range sortedKeys(keys) {
		f, err := dir.OpenFile(k, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("workspace: lock %s: %w", keys[k], err)
		}
		if err := waitLock(ctx, f); err != nil {
			f.Close()
			unlock()
			return nil, fmt.Errorf("%s is being changed by another cchub process: %w; try again", keys[k], err)
		}
		held = append(held, f)
	}
	return unlock, nil
}

// lockKey names the lock of rel: the same file reached by another name
// through a symlink takes the same lock.
func (r *Root) lockKey(rel string) string {
	key := rel
	if target, err := r.writeTarget(rel); err == nil {
		key = target
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:12]) + ".lock"
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// waitLock polls for f's exclusive lock until ctx ends or LockWait passes:
// a blocking flock could not be cancelled.
func waitLock(ctx context.Context, f *os.File) error {
	deadline := time.Now().Add(LockWait)
	delay := time.Millisecond
	for {
		ok, err := tryLock(f)
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still locked after %s", LockWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(delay*2, 50*time.Millisecond)
	}
}
