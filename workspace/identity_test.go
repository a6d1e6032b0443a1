package workspace_test

import (
	"testing"
	"time"

	"cchub/workspace"
)

// The rule: a file is trusted unchanged only when size, mtime, ctime,
// inode and device all match an Identity that is known; any one field
// moved, alone, and it is read again.
func TestIdentitySameIsEveryField(t *testing.T) {
	kept := workspace.Identity{Size: 10, MTime: 1_700_000_000_000_000_000, CTime: 1_700_000_000_500_000_000, Inode: 42, Dev: 2049}
	if !kept.Same(kept) {
		t.Error("an identity with every field equal is not trusted")
	}
	moved := map[string]func(*workspace.Identity){
		"size":   func(id *workspace.Identity) { id.Size++ },
		"mtime":  func(id *workspace.Identity) { id.MTime++ },
		"ctime":  func(id *workspace.Identity) { id.CTime++ }, // cp -p, touch -r: only ctime says so
		"inode":  func(id *workspace.Identity) { id.Inode++ }, // renamed over, times kept
		"device": func(id *workspace.Identity) { id.Dev++ },
	}
	for field, move := range moved {
		now := kept
		move(&now)
		if kept.Same(now) {
			t.Errorf("%s changed alone, yet the file is trusted unchanged", field)
		}
	}
	for _, unknown := range []workspace.Identity{
		{Size: 10, CTime: kept.CTime, Inode: 42, Dev: 2049},       // mtime unknown
		{Size: 10, MTime: kept.MTime, Inode: 42, Dev: 2049},       // ctime unknown: a row from before it was kept
		{Size: 10, MTime: kept.MTime, CTime: 0, Inode: 0, Dev: 0}, // the same, inode and device too
	} {
		if unknown.Known() || unknown.Same(unknown) {
			t.Errorf("%+v vouches for its own content, though unknown", unknown)
		}
	}
}

// Settled keeps an Identity only when both times are older than the racy
// window at the start of the read: a file changed within it (or with a
// time ahead of the clock) may change again within its times' tick.
func TestSettledForgetsTimesWithinTheRacyWindow(t *testing.T) {
	start := time.Now()
	old := start.Add(-time.Hour).UnixNano()
	recent := start.Add(-workspace.RacyWindow / 2).UnixNano()
	ahead := start.Add(time.Minute).UnixNano()
	for _, c := range []struct {
		name         string
		mtime, ctime int64
		known        bool
	}{
		{"both old", old, old, true},
		{"ctime recent, mtime put back", old, recent, false},
		{"mtime recent", recent, recent, false},
		{"ctime ahead of the clock", old, ahead, false},
	} {
		id := workspace.Identity{Size: 1, MTime: c.mtime, CTime: c.ctime, Inode: 3, Dev: 4}
		got := id.Settled(start)
		if got.Known() != c.known {
			t.Errorf("%s: Settled gives %+v, known %v; want known %v", c.name, got, got.Known(), c.known)
		}
		if c.known && got != id {
			t.Errorf("%s: Settled changed %+v to %+v", c.name, id, got)
		}
	}
}
