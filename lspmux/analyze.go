package lspmux

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path"
	"strings"

	"go.lsp.dev/uri"

	"cchub/workspace"
)

// A server that analyses only the packages of open files (gopls runs its
// analyzers, vet's among them, on those alone; it type-checks every
// package) would answer a whole-workspace question with less than the
// language's own checker (gopls check) reports for the same files. For
// such a server (Spec.AnalyzesOpen) the whole-workspace answer opens one
// file of each package first, as the checker reads them all.

// maxAnalyzedPackages bounds the files opened for one whole-workspace
// answer: past it, the answer says how many packages were left out.
const maxAnalyzedPackages = 500

// maxPackageHeader is how much of a Go file is read for its build
// constraints and package clause.
const maxPackageHeader = 16 << 10

// packageFiles picks, under dir (relative to the root; "" for all), one
// file of each Go package: by directory and package clause, a file this
// platform builds, not under testdata, vendor or a directory the go
// command ignores, nor in a nested module. It returns at most max files,
// and how many packages it found.
func (m *Mux) packageFiles(ctx context.Context, dir string, max int) ([]string, int) {
	start := dir
	if start == "" {
		start = "."
	}
	seen := map[string]bool{} // dir + "\x00" + package name
	var files []string
	ctxt := build.Default
	ctxt.CgoEnabled = true // gopls's default build: cgo files are in
	_ = m.root.Walk(ctx, start, func(rel string, d fs.DirEntry) error {
		name := d.Name()
		if d.IsDir() {
			if rel == start || rel == "." {
				return nil
			}
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
				return workspace.SkipDir
			}
			if _, err := m.root.Lstat(path.Join(rel, "go.mod")); err == nil {
				return workspace.SkipDir // another module: not this workspace's
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			return nil
		}
		text, err := m.root.ReadText(rel)
		if err != nil {
			return nil
		}
		head := text[:min(len(text), maxPackageHeader)]
		// The file's name (GOOS, GOARCH, _test) and build constraints, as
		// this platform's build, which gopls's default view is, reads them.
		ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(head)), nil }
		if ok, err := ctxt.MatchFile(".", name); err != nil || !ok {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, head, parser.PackageClauseOnly)
		if err != nil || f.Name == nil {
			return nil
		}
		key := path.Dir(rel) + "\x00" + f.Name.Name
		if seen[key] {
			return nil
		}
		seen[key] = true
		if len(files) < max {
			files = append(files, rel)
		}
		return nil
	})
	return files, len(seen)
}

// openPackages opens, in s, one file of each package under its root that
// it does not hold open (packageFiles), and returns what it told.
func (m *Mux) openPackages(ctx context.Context, s *server, rep *Report) map[uri.URI]told {
	files, total := m.packageFiles(ctx, s.own.dir, maxAnalyzedPackages)
	if total > len(files) {
		rep.note(fmt.Sprintf("%s's analyzers ran on %d of the workspace's %d packages (it analyses only packages with an open file, and at most %d are opened for one answer); ask diagnostics with paths for the others", s.own.spec.Name, len(files), total, maxAnalyzedPackages))
	}
	out := map[uri.URI]told{}
	for _, rel := range files {
		u := m.docURI(rel)
		s.mu.Lock()
		_, open := s.docs[u]
		s.mu.Unlock()
		if open {
			continue
		}
		text, err := m.root.ReadText(rel)
		if err != nil {
			continue
		}
		t, err := s.tell(ctx, u, s.own.lang, text)
		if err != nil {
			break
		}
		out[u] = t
	}
	return out
}
