package codegraph

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/dominikbraun/graph"

	"cchub/store"
	"cchub/syntax"
	"cchub/workspace"
)

// Evidence of an edge, most certain first.
const (
	Confirmed = "confirmed" // the language server agrees (set by a confirmation, never by resolution)
	Exact     = "exact"     // same package or file, a method of the enclosing or the inferred type
	Imported  = "import"    // through the file's imports
	NameOnly  = "name-only" // the name alone
	// Possible is a call the graph could not resolve that names a
	// definition (a name shared by too many to link, say): never dropped,
	// listed apart.
	Possible = "possible"
	// Refuted is an edge the language server says is not one: left out of
	// answers, and counted.
	Refuted = "refuted"
)

// Evidences are the evidence classes an edge can have, most certain first.
var Evidences = []string{Confirmed, Exact, Imported, NameOnly, Possible}

// rank orders evidence, most certain first (Refuted and unknown last).
func rank(c string) int {
	switch c {
	case Confirmed:
		return 0
	case Exact:
		return 1
	case Imported:
		return 2
	case NameOnly:
		return 3
	case Possible:
		return 4
	}
	return 5
}

// Rank orders evidence for callers: lower is surer.
func Rank(evidence string) int { return rank(evidence) }

// Index is the graph of one workspace, kept up to date by Update: a file
// whose size and modification time did not change is not read again, and
// one whose content did not change is not parsed again. With a store
// (Persist), what was read survives the process: the next cchub reads
// only what changed since. Its methods are safe for concurrent use.
type Index struct {
	root  *workspace.Root
	cache *syntax.ParseCache
	db    *store.Store // nil: kept in memory only

	upd sync.Mutex // one Update at a time

	mu     sync.Mutex
	files  map[string]*File            // nil: in the store, not loaded yet
	stamps map[string]store.GraphStamp // what each file was when read
	stored bool                        // stamps came from the store
	built  *built                      // the resolved graph
	// changed holds, for each file read again since built was resolved,
	// the version built has: built is patched for them (see patch) or
	// resolved again.
	changed map[string]*File
	// rw guards built's contents: queries read under it, a patch writes.
	rw sync.RWMutex
}

// built is the resolved graph of the files at one moment.
type built struct {
	defs   map[string]*Def      // by key
	byName map[string][]*Def    // name → its definitions
	calls  map[string][]site    // caller key → its calls, resolved
	edges  map[[2]string]string // caller key, callee key → the surest confidence
	once   sync.Once
	g      graph.Graph[string, string] // made from edges on first need (Graph)
	callIn map[string][]incoming       // callee key → its call sites
	// crowded counts, per name, the calls left unlinked because the name
	// alone matched more than maxNameOnly definitions.
	crowded map[string]int
	// crowdIn holds those calls by name: each a possible call of every
	// definition so named.
	crowdIn map[string][]incoming
	r       *resolver // kept to resolve one file's calls again (patch)
}

// site is one call and the definitions it may reach.
type site struct {
	Path    string
	Call    Call
	Targets []target
	Crowd   int // the name matched this many definitions: too many to link
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
	ref        bool // a reference to the definition as a value, not a call
}

// NewIndex returns the empty index of root; Update fills it.
func NewIndex(root *workspace.Root, cache *syntax.ParseCache) *Index {
	return &Index{root: root, cache: cache, files: map[string]*File{}, stamps: map[string]store.GraphStamp{}}
}

// Persist keeps the index in db: the first Update starts from what db
// holds, and every Update saves what it read. Call it before Update.
func (x *Index) Persist(db *store.Store) { x.db = db }

// Stats says what an update did: the files indexed, how many of them were
// read (their stamp had changed) and parsed (their content had), how many
// were forgotten, and what the index holds.
type Stats struct {
	Files, Read, Parsed, Removed, Defs, Calls int
}

// candidate is a file the walk found, with its stamp.
type candidate struct {
	rel         string
	size, mtime int64
}

// racyWindow: a file modified this recently may change again within the
// same clock tick without its mtime showing it, so its mtime is not
// trusted next time (it is hashed instead).
const racyWindow = 2 * time.Second

// Update walks the workspace and reads every supported file whose stamp
// changed since the last update, parsing those whose content changed, and
// forgets files that are gone.
func (x *Index) Update(ctx context.Context) (Stats, error) { return x.UpdateProgress(ctx, nil) }

// UpdateProgress is Update that calls progress (if not nil) as it reads
// files: how many are done of how many it must read. progress is called
// from Update's goroutines, one call at a time.
func (x *Index) UpdateProgress(ctx context.Context, progress func(done, total int)) (Stats, error) {
	x.upd.Lock()
	defer x.upd.Unlock()
	var st Stats
	if x.root == nil {
		return st, errors.New("codegraph: this index is not of a workspace; files are given to it with Put")
	}
	if err := x.loadStamps(ctx); err != nil {
		return st, err
	}
	start := time.Now()
	var found []candidate
	err := x.root.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() || !Indexed(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil // gone since listed, or not a file: not code to read
		}
		found = append(found, candidate{rel, info.Size(), info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return st, err
	}
	x.mu.Lock()
	var todo []candidate
	seen := make(map[string]bool, len(found))
	for _, c := range found {
		seen[c.rel] = true
		old, ok := x.stamps[c.rel]
		if !ok || old.MTime == 0 || old.MTime != c.mtime || old.Size != c.size || old.Format != Format {
			todo = append(todo, c)
		}
	}
	var removed []string
	for rel := range x.stamps {
		if !seen[rel] {
			removed = append(removed, rel)
		}
	}
	x.mu.Unlock()

	puts, err := x.read(ctx, todo, start, progress)
	if err != nil {
		return st, err
	}
	x.mu.Lock()
	for _, rel := range removed {
		delete(x.files, rel)
		delete(x.stamps, rel)
		x.invalidate()
	}
	x.mu.Unlock()
	if x.db != nil {
		if err := x.db.SaveGraph(ctx, puts, removed); err != nil {
			return st, err
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	st.Files, st.Read, st.Removed = len(x.stamps), len(todo), len(removed)
	for _, p := range puts {
		if p.Data != nil {
			st.Parsed++
		}
	}
	for _, s := range x.stamps {
		st.Defs += s.Defs
		st.Calls += s.Calls
	}
	return st, nil
}

// loadStamps starts the index from the store, once.
func (x *Index) loadStamps(ctx context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.db == nil || x.stored {
		return nil
	}
	stamps, err := x.db.GraphStamps(ctx)
	if err != nil {
		return err
	}
	for rel, s := range stamps {
		if s.Format != Format {
			continue // read by another cchub: read again
		}
		if _, ok := x.stamps[rel]; !ok {
			x.stamps[rel] = s
			x.files[rel] = nil
			x.invalidate()
		}
	}
	x.stored = true
	return nil
}

// read reads the files of todo on every core, parsing those whose content
// changed, and returns what to save. A file that cannot be read as text
// (binary, too large, gone) is forgotten.
func (x *Index) read(ctx context.Context, todo []candidate, start time.Time, progress func(done, total int)) ([]store.GraphFile, error) {
	if len(todo) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		next  = make(chan candidate)
		outMu sync.Mutex
		puts  []store.GraphFile
		done  int
		first error
	)
	fail := func(err error) {
		outMu.Lock()
		if first == nil {
			first = err
		}
		outMu.Unlock()
		cancel()
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range next {
				put, ok, err := x.readOne(ctx, c, start)
				if err != nil {
					fail(err)
					continue
				}
				outMu.Lock()
				if ok {
					puts = append(puts, put)
				}
				done++
				if progress != nil {
					progress(done, len(todo))
				}
				outMu.Unlock()
			}
		}()
	}
feed:
	for _, c := range todo {
		select {
		case next <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return puts, nil
}

// readOne reads one file: its stamp only when its content is what the
// index holds, else what the graph needs of it.
func (x *Index) readOne(ctx context.Context, c candidate, start time.Time) (store.GraphFile, bool, error) {
	src, err := x.root.ReadText(c.rel)
	var f *File
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			x.mu.Lock()
			if _, ok := x.stamps[c.rel]; ok {
				delete(x.stamps, c.rel)
				delete(x.files, c.rel)
				x.invalidate()
			}
			x.mu.Unlock()
			return store.GraphFile{}, false, nil // gone since the walk
		}
		// Binary, too large, not UTF-8: not code the graph can read. It
		// is kept as an empty file, so that its stamp spares reading it
		// again until it changes.
		f, src, err = &File{Path: c.rel}, nil, nil
		if l := syntax.LanguageFor(c.rel); l != nil {
			f.Language = l.Name
		}
	}
	mtime := c.mtime
	if start.Sub(time.Unix(0, mtime)) < racyWindow {
		mtime = 0
	}
	h := sha256.Sum256(src)
	x.mu.Lock()
	old, ok := x.stamps[c.rel]
	x.mu.Unlock()
	if ok && old.SHA256 == h && old.Format == Format {
		old.Size, old.MTime = c.size, mtime
		x.mu.Lock()
		x.stamps[c.rel] = old
		x.mu.Unlock()
		return store.GraphFile{Path: c.rel, GraphStamp: old}, true, nil
	}
	if f == nil {
		f, err = Extract(ctx, x.cache, c.rel, src)
	}
	if err != nil {
		if ctx.Err() != nil {
			return store.GraphFile{}, false, ctx.Err()
		}
		return store.GraphFile{}, false, fmt.Errorf("codegraph: %s: %w", c.rel, err)
	}
	s := store.GraphStamp{SHA256: h, Size: c.size, MTime: mtime, Format: Format, Defs: len(f.Defs), Calls: len(f.Calls)}
	x.mu.Lock()
	x.stamps[c.rel] = s
	if prev := x.files[c.rel]; prev != nil && x.built != nil {
		if _, ok := x.changed[c.rel]; !ok {
			if x.changed == nil {
				x.changed = map[string]*File{}
			}
			x.changed[c.rel] = prev
		}
	} else {
		x.invalidate()
	}
	x.files[c.rel] = f
	x.mu.Unlock()
	put := store.GraphFile{Path: c.rel, GraphStamp: s}
	if x.db != nil {
		put.Data = encode(f)
	} else {
		put.Data = []byte{}
	}
	return put, true, nil
}

// load reads from the store the files indexed there and not yet in
// memory. Call with x.mu held.
func (x *Index) load(ctx context.Context) error {
	want := map[string]bool{}
	for rel, f := range x.files {
		if f == nil {
			want[rel] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	if x.db == nil {
		return errors.New("codegraph: files of the index are missing and there is no store to read them from")
	}
	intern := map[string]string{}
	err := x.db.GraphData(ctx, want, func(rel string, s store.GraphStamp, data []byte) error {
		if s.SHA256 != x.stamps[rel].SHA256 {
			return nil // changed by another process since: read below
		}
		f, err := decode(rel, data, intern)
		if err != nil {
			return err
		}
		f.hash = s.SHA256
		x.files[rel] = f
		delete(want, rel)
		return nil
	})
	if err != nil {
		return err
	}
	// A file another process indexed anew since our stamps were read:
	// forget the stamp, so the next Update reads it.
	for rel := range want {
		delete(x.files, rel)
		delete(x.stamps, rel)
	}
	x.invalidate()
	return nil
}

// invalidate drops the resolved graph: the next query resolves it all.
// Call with x.mu held.
func (x *Index) invalidate() {
	x.built, x.changed = nil, nil
}

// graph returns the resolved graph, brought up to date: patched when only
// function bodies changed, resolved again otherwise. The caller reads it
// until it calls release.
func (x *Index) graph(ctx context.Context) (b *built, release func(), err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.built != nil && len(x.changed) > 0 {
		x.rw.Lock() // wait for the queries reading it
		ok := x.built.patch(x.files, x.changed)
		x.rw.Unlock()
		if ok {
			x.changed = nil
		} else {
			x.invalidate()
		}
	}
	if x.built == nil {
		if err := x.load(ctx); err != nil {
			return nil, nil, err
		}
		x.built = resolve(x.files)
	}
	x.rw.RLock()
	return x.built, x.rw.RUnlock, nil
}

// NewMemIndex returns an index that is not tied to a workspace: files are
// given to it with Put (from a git revision, say). Update is an error on it.
func NewMemIndex() *Index {
	return &Index{files: map[string]*File{}, stamps: map[string]store.GraphStamp{}}
}

// Put adds or replaces one file of the index (nil f removes rel).
func (x *Index) Put(rel string, f *File) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if f == nil {
		delete(x.files, rel)
		delete(x.stamps, rel)
	} else {
		x.files[rel] = f
		x.stamps[rel] = store.GraphStamp{SHA256: f.hash, Format: Format, Defs: len(f.Defs), Calls: len(f.Calls)}
	}
	x.invalidate()
}

// File returns what the index holds of rel, or nil.
func (x *Index) File(rel string) *File {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.files[rel]
}

// Files returns what the index holds of every file, loading from the
// store what is not in memory yet.
func (x *Index) Files(ctx context.Context) ([]*File, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.load(ctx); err != nil {
		return nil, err
	}
	out := make([]*File, 0, len(x.files))
	for _, f := range x.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
