package workspace

import (
	"io/fs"
	"os"
	"sync/atomic"
)

// Dir is a directory a walk holds open while its files are read, so that
// each is opened relative to it: the kernel resolves one name, not the
// whole path from the root again (a third of grep's time over GOROOT).
// The walk and each reader it hands the Dir to hold it; the last to let
// go closes it.
type Dir struct {
	f    *os.File // nil when fd was opened raw (readDirAt)
	fd   int      // f's descriptor, taken once
	abs  string   // its path, for an entry's Info once it is closed
	refs atomic.Int32
	// ends says whether a read of a regular file here that stops short
	// of the room it had is at the file's end (shortReadsEnd): 0 not yet
	// asked, 1 yes, 2 no.
	ends atomic.Int32
}

// Hold keeps the directory open until the matching Release.
func (d *Dir) Hold() {
	if d != nil {
		d.refs.Add(1)
	}
}

// tryHold holds the directory if it is still open.
func (d *Dir) tryHold() bool {
	for {
		n := d.refs.Load()
		if n <= 0 {
			return false
		}
		if d.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release lets go of it; the last release closes it.
func (d *Dir) Release() {
	if d != nil && d.refs.Add(-1) == 0 {
		if d.f != nil {
			d.f.Close()
		} else {
			closeFD(d.fd)
		}
	}
}

// HeldWalkFunc is a WalkFunc that is also given, for a file, the
// directory the walk holds open for it (nil when there is none: the file
// named as the walk's start, or no way to hold one). The Dir is the
// callee's only during the call; to read the file later it calls Hold,
// and Release once done.
type HeldWalkFunc func(rel string, d fs.DirEntry, dir *Dir) error
