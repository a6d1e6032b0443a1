//go:build race

package structsearch

// raceEnabled says the race detector is on: it multiplies memory, so
// bounds on a child's peak memory allow for it.
const raceEnabled = true
