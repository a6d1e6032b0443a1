package codegraph

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/dominikbraun/graph"

	"cchub/workspace"
)

// Confidence classes of an edge, most certain first.
const (
	Exact    = "exact"     // same package or file, or a method of the enclosing type
	Imported = "import"    // through the file's imports
	NameOnly = "name-only" // the name alone
)

func rank(c string) int {
	switch c {
	case Exact:
		return 0
	case Imported:
		return 1
	}
	return 2
}

// Index is the graph of one workspace, kept up to date by Update: a file
// whose content did not change is not read again. Its methods are safe for
// concurrent use.
type Index struct {
	root  *workspace.Root
	cache *workspace.ParseCache

	mu    sync.Mutex
	files map[string]*File
	built *built // the resolved graph, made again after any change
}

// built is the resolved graph of the files at one moment.
type built struct {
	defs   map[string]*Def     // by key
	byName map[string][]string // name → def keys
	calls  map[string][]site   // caller key → its calls, resolved
	g      graph.Graph[string, string]
	callIn map[string][]incoming // callee key → its call sites
}

// site is one call and the definitions it may reach.
type site struct {
	Path    string
	Call    Call
	Targets []target
}

type target struct {
	key        string
	confidence string
}

// incoming is one call of a definition.
type incoming struct {
	caller     string // def key, or "path:" for top level
	path       string
	line, col  int
	confidence string
}

// NewIndex returns the empty index of root; Update fills it.
func NewIndex(root *workspace.Root, cache *workspace.ParseCache) *Index {
	return &Index{root: root, cache: cache, files: map[string]*File{}}
}

// Stats says what an update did.
type Stats struct {
	Files, Read, Removed, Defs, Calls int
}

// Update walks the workspace and reads every supported file whose content
// changed since the last update, forgetting files that are gone.
func (x *Index) Update(ctx context.Context) (Stats, error) {
	var st Stats
	if x.root == nil {
		return st, errors.New("codegraph: this index is not of a workspace; files are given to it with Put")
	}
	seen := map[string]bool{}
	var mu sync.Mutex
	err := x.root.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		lang := workspace.LanguageFor(rel)
		if !Supported(lang) {
			return nil
		}
		src, err := x.root.ReadText(rel)
		if err != nil {
			return nil // binary, too large: not code the graph can read
		}
		h := sha256.Sum256(src)
		mu.Lock()
		seen[rel] = true
		st.Files++
		mu.Unlock()
		x.mu.Lock()
		old := x.files[rel]
		x.mu.Unlock()
		if old != nil && old.hash == h {
			return nil
		}
		tree, err := x.cache.ParseUncached(ctx, lang, src)
		if err != nil {
			return err
		}
		f, err := extract(ctx, rel, tree)
		tree.Release()
		if err != nil {
			return err
		}
		f.hash = h
		x.mu.Lock()
		x.files[rel] = f
		x.built = nil
		x.mu.Unlock()
		st.Read++
		return nil
	})
	if err != nil {
		return st, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for rel := range x.files {
		if !seen[rel] {
			delete(x.files, rel)
			x.built = nil
			st.Removed++
		}
	}
	for _, f := range x.files {
		st.Defs += len(f.Defs)
		st.Calls += len(f.Calls)
	}
	return st, nil
}

func key(d *Def) string { return fmt.Sprintf("%s:%d:%s", d.Path, d.Start, d.Qual()) }

// graph returns the resolved graph, resolving it again after a change.
func (x *Index) graph() *built {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built == nil {
		x.built = resolve(x.files)
	}
	return x.built
}

// NewMemIndex returns an index that is not tied to a workspace: files are
// given to it with Put (from a git revision, say). Update is an error on it.
func NewMemIndex() *Index {
	return &Index{files: map[string]*File{}}
}

// Put adds or replaces one file of the index (nil f removes rel).
func (x *Index) Put(rel string, f *File) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if f == nil {
		delete(x.files, rel)
	} else {
		x.files[rel] = f
	}
	x.built = nil
}

// File returns what the index holds of rel, or nil.
func (x *Index) File(rel string) *File {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.files[rel]
}
