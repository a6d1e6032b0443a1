//go:build !race

package structsearch

const raceEnabled = false
