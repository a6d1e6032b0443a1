package wstest

import "time"

// Settle waits until every file written before it is older, by its ctime,
// than window (workspace.RacyWindow, given by the caller: this kit cannot
// import the package it serves the tests of): only then does an index
// trust a file unchanged without reading it (workspace.Identity). No test
// can set a ctime back, as it can an mtime, so a test whose files must be
// trusted waits, once, after writing them.
func Settle(window time.Duration) {
	time.Sleep(window + 50*time.Millisecond)
}
