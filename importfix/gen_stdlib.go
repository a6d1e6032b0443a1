//go:build ignore

// gen_stdlib writes stdlib.txt, the standard library's packages and the
// names each exports, from the API files of the Go toolchain that runs
// it ($GOROOT/api/go1*.txt, as x/tools' internal/stdlib is made).
// Run it with `go generate ./importfix` after moving to a new Go.
package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// line reads "pkg PATH[ (GOOS-GOARCH)], KIND NAME…" for the kinds a
// qualified identifier can name (methods and fields cannot).
var line = regexp.MustCompile(`^pkg ([^ ,]+)(?: \([^)]*\))?, (?:const|var|func|type) ([A-Za-z0-9_]+)`)

func main() {
	files, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "api", "go1*.txt"))
	if err != nil || len(files) == 0 {
		fmt.Fprintln(os.Stderr, "gen_stdlib: no api files under", runtime.GOROOT())
		os.Exit(1)
	}
	names := map[string]map[string]bool{
		// unsafe has no API file; its names are the language's.
		"unsafe": {"Add": true, "Alignof": true, "Offsetof": true, "Pointer": true, "Sizeof": true, "Slice": true, "SliceData": true, "String": true, "StringData": true},
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen_stdlib:", err)
			os.Exit(1)
		}
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			m := line.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			if names[m[1]] == nil {
				names[m[1]] = map[string]bool{}
			}
			names[m[1]][m[2]] = true
		}
	}
	var b strings.Builder
	b.WriteString("# The standard library's packages, each with the names it exports; made by gen_stdlib.go from " + runtime.Version() + "'s api files.\n")
	for _, p := range slices.Sorted(maps.Keys(names)) {
		b.WriteString(p + " " + strings.Join(slices.Sorted(maps.Keys(names[p])), " ") + "\n")
	}
	if err := os.WriteFile("stdlib.txt", []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen_stdlib:", err)
		os.Exit(1)
	}
}
