package blast

import (
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"cchub/lang"
	"cchub/unidiff"
)

// What test selection knows of Go code, whatever runs its tests: the
// files that change how every package builds, build constraints, the
// lines that change nothing, modules and who imports what.

// goModFiles change how every package builds.
var goModFiles = map[string]bool{"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true}

var (
	goOS   = strings.Fields("aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos")
	goArch = strings.Fields("386 amd64 amd64p32 arm arm64 arm64be armbe loong64 mips mips64 mips64le mips64p32 mips64p32le mipsle ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm")
)

// goBuildConstrained says whether a Go file builds only sometimes: a
// //go:build or // +build line (in head, or deleted by the diff), or a
// _GOOS or _GOARCH name.
func goBuildConstrained(p string, d unidiff.File, read func(string, unidiff.File) ([]byte, error)) bool {
	name := strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".go"), "_test")
	parts := strings.Split(name, "_")
	if n := len(parts); n > 1 {
		last := parts[n-1]
		if slices.Contains(goOS, last) || slices.Contains(goArch, last) {
			return true
		}
	}
	constraint := func(line string) bool {
		t := strings.TrimSpace(line)
		return strings.HasPrefix(t, "//go:build") || strings.HasPrefix(t, "// +build")
	}
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			if constraint(l.Text) {
				return true
			}
		}
	}
	src, err := read(p, d)
	if err != nil {
		return true // cannot tell: as if it had
	}
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if constraint(t) {
			return true
		}
		if strings.HasPrefix(t, "package ") {
			return false // constraints come before the package clause
		}
	}
	return false
}

var goImportLine = regexp.MustCompile(`^(import\s+\(?\s*)?([A-Za-z][A-Za-z0-9_]*\s+)?"[^"]*"\s*(//.*)?$|^import\s*\($`)

// goInertLines reads the lines of one side of a hunk of a Go file: a
// line outside every definition changes nothing by itself when it is
// blank, a comment (not a //go: directive), an import that binds a name
// (not a blank or dot import: those run or expose code), the ")" closing
// an import block, or the package clause of a file added or deleted
// whole.
func goInertLines(st unidiff.Status) func(string) bool {
	var block importBlock
	return func(text string) bool {
		t := strings.TrimSpace(text)
		if block.closes(t) {
			return true
		}
		switch {
		case t == "":
			return true
		case strings.HasPrefix(t, "//go:"):
			return false
		case strings.HasPrefix(t, "//"):
			return true
		case strings.HasPrefix(t, "package ") && (st == unidiff.Added || st == unidiff.Deleted):
			return true
		}
		return goImportLine.MatchString(t)
	}
}

// importBlock follows the lines of one side of a hunk, trimmed: whether
// the lines before opened an import block ("import (") and did not close
// it.
type importBlock struct{ open bool }

// closes says whether t closes the open block, and notes one opening.
func (b *importBlock) closes(t string) bool {
	if t == "import (" {
		b.open = true
	}
	if t == ")" && b.open {
		b.open = false
		return true
	}
	return false
}

// goModuleOf is the directory of the go.mod a directory's package is in
// ("." at the root; "." too when there is none).
func goModuleOf(head files, dir string) string {
	for d := dir; ; d = path.Dir(d) {
		if head[path.Join(d, "go.mod")] != nil {
			return d
		}
		if d == "." {
			return "."
		}
	}
}

// goModules is the directories of the go.mod files of head, sorted.
func goModules(head files) []string {
	var mods []string
	for p, f := range head {
		if path.Base(p) == "go.mod" && f != nil {
			mods = append(mods, path.Dir(p))
		}
	}
	sort.Strings(mods)
	return mods
}

// goImports is who imports which Go package.
type goImports struct {
	head files
	imp  map[string][]importer // package path → the directories importing it
	memo map[string][]string   // the answers already given: a radius asks for the same packages many times
}

type importer struct {
	dir  string
	test bool // only from a _test.go file
}

func newGoImports(head files) *goImports {
	g := &goImports{head: head, imp: map[string][]importer{}, memo: map[string][]string{}}
	for p, f := range head {
		if f.Language == lang.Go {
			for _, im := range f.Imports {
				g.imp[im.Target] = append(g.imp[im.Target], importer{dir: path.Dir(p), test: lang.IsTestFile(p)})
			}
		}
	}
	return g
}

// pathOf is the import path of the package in dir, by its module's path
// ("" when no go.mod says it).
func (g *goImports) pathOf(dir string) string {
	mod := goModuleOf(g.head, dir)
	f := g.head[path.Join(mod, "go.mod")]
	if f == nil || len(f.Imports) == 0 {
		return ""
	}
	if dir == mod {
		return f.Imports[0].Target
	}
	return f.Imports[0].Target + "/" + strings.TrimPrefix(strings.TrimPrefix(dir, mod), "/")
}

// importers is the directories whose packages import dir's, directly or
// through other packages (a test file's import counts, but is not
// followed further).
func (g *goImports) importers(dir string) []string {
	if out, ok := g.memo[dir]; ok {
		return out
	}
	seen := map[string]bool{dir: true}
	var out []string
	queue := []string{dir}
	followed := map[string]bool{dir: true}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		pp := g.pathOf(d)
		if pp == "" {
			continue
		}
		for _, im := range g.imp[pp] {
			if !seen[im.dir] {
				seen[im.dir] = true
				out = append(out, im.dir)
			}
			if !im.test && !followed[im.dir] {
				followed[im.dir] = true
				queue = append(queue, im.dir)
			}
		}
	}
	sort.Strings(out)
	g.memo[dir] = out
	return out
}
