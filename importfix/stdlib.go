package importfix

import (
	_ "embed"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run gen_stdlib.go

//go:embed stdlib.txt
var stdlibText string

// stdlib maps a standard-library import path to the names it exports.
var stdlib = sync.OnceValue(func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for _, l := range strings.Split(stdlibText, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		names := make(map[string]bool, len(f)-1)
		for _, n := range f[1:] {
			names[n] = true
		}
		m[f[0]] = names
	}
	return m
})

// stdlibName is the name a standard-library package is imported under:
// its path's last element, or for a major version (math/rand/v2) the one
// before it.
func stdlibName(p string) string {
	base := path.Base(p)
	if v, ok := strings.CutPrefix(base, "v"); ok {
		if _, err := strconv.Atoi(v); err == nil {
			return path.Base(path.Dir(p))
		}
	}
	return base
}

// stdlibFor is the standard-library packages named name that export
// every one of sels, in the order goimports prefers them (crypto/rand
// before math/rand/v2 before math/rand; otherwise by path).
func stdlibFor(name string, sels map[string]bool) []string {
	var out []string
	for p, exports := range stdlib() {
		if stdlibName(p) != name || strings.Contains(p, "internal") {
			continue
		}
		all := true
		for s := range sels {
			all = all && exports[s]
		}
		if all {
			out = append(out, p)
		}
	}
	prefer := map[string]int{"crypto/rand": 0, "math/rand/v2": 1, "math/rand": 2}
	rank := func(p string) int {
		if r, ok := prefer[p]; ok {
			return r
		}
		return 3
	}
	slices.SortFunc(out, func(a, b string) int {
		if rank(a) != rank(b) {
			return rank(a) - rank(b)
		}
		return strings.Compare(a, b)
	})
	return out
}
