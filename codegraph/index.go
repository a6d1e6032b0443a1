package codegraph

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dominikbraun/graph"

	"cchub/lang"
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
// (Persist), what was read survives the process: the checkout's store
// keeps which content each path held, and the shared store (the same
// file, or a database many checkouts share) what each content yields, so
// the next cchub, or another checkout of the same files, parses only what
// no one parsed before. Its methods are safe for concurrent use.
type Index struct {
	root   *workspace.Root
	cache  *syntax.ParseCache
	db     *store.Store // nil: kept in memory only
	shared store.Shared // the extractions' store; nil without db

	upd sync.Mutex // one Update at a time

	mu     sync.Mutex
	files  map[string]*File            // nil: in the shared store, not loaded yet
	stamps map[string]store.GraphStamp // what each file was when read
	stored bool                        // stamps came from the store
	built  *built                      // the resolved graph
	// changed holds, for each file read again since built was resolved,
	// the version built has: built is patched for them (see patch) or
	// resolved again.
	changed map[string]*File
	// notes are what went wrong that a person should hear (a corrupt row
	// of the shared store), each told once by Notices.
	notes []string
	// tooBig names the files not parsed for their size since the last
	// Notices (syntax.TooBig), guarded by its own mutex: parseOne runs
	// with and without x.mu.
	tooBigMu sync.Mutex
	tooBig   []string
	// rw guards built's contents: queries read under it, a patch writes.
	rw sync.RWMutex
	// direct says queries may read a snapshot of the tree from the shared
	// store instead of resolving it (true until a snapshot fails).
	direct bool
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
	// gen is the generation of the files it was resolved from (zero once
	// patched: it is then of no stored tree).
	gen store.Gen
	// saved says the shared store holds the snapshot of gen.
	saved atomic.Bool
	// lazy is set when b is read from a snapshot, row by row, as queries
	// need (snapshot.go); nil when resolved in memory, whole.
	lazy *lazy
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
	qualified  bool // a possible call made on a value or a module (x.Name(), not Name())
}

// NewIndex returns the empty index of root; Update fills it.
func NewIndex(root *workspace.Root, cache *syntax.ParseCache) *Index {
	return &Index{root: root, cache: cache, files: map[string]*File{}, stamps: map[string]store.GraphStamp{}}
}

// Persist keeps the index in db (which content each path held) and
// shared (what each content yields; nil: db's own shared tables). Call it
// before Update.
func (x *Index) Persist(db *store.Store, shared store.Shared) {
	x.db, x.shared, x.direct = db, shared, true
	if shared == nil && db != nil {
		x.shared = store.LocalShared(db)
	}
}

// Notices returns what went wrong since the last call that a person
// should hear (corrupt rows of the shared store, ignored), each once.
func (x *Index) Notices() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := x.notes
	x.notes = nil
	x.tooBigMu.Lock()
	out = append(out, x.tooBig...)
	x.tooBig = nil
	x.tooBigMu.Unlock()
	return append(out, store.SharedNotices(x.shared)...)
}

// Stats says what an update did: the files indexed, how many of them were
// read (their stamp had changed), parsed (their content had, and no one
// had extracted it before) and found in the shared store (extracted
// before, by this checkout or another), how many were forgotten, and what
// the index holds.
type Stats struct {
	Files, Read, Parsed, Shared, Removed, Defs, Calls int
}

// candidate is a file the walk found, with its workspace.Identity.
type candidate struct {
	rel string
	id  workspace.Identity
}

// Update walks the workspace and reads every supported file whose
// workspace.Identity does not vouch for what the last update read, parsing those whose content changed, and
// forgets files that are gone.
func (x *Index) Update(ctx context.Context) (Stats, error) { return x.UpdateProgress(ctx, nil) }

// UpdateProgress is Update that calls progress (if not nil) as it parses
// files: how many are done of how many it must parse. progress is called
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
		found = append(found, candidate{rel, workspace.IdentityOf(info)})
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
		if !ok || !old.Identity.Same(c.id) || old.Format != Format {
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

	u, err := x.read(ctx, todo, start, progress)
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
	if err := x.save(ctx, u, removed); err != nil {
		return st, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	st.Files, st.Read, st.Removed = len(x.stamps), len(todo), len(removed)
	st.Parsed, st.Shared = u.parsed, u.shared
	for _, s := range x.stamps {
		st.Defs += s.Defs
		st.Calls += s.Calls
	}
	return st, nil
}

// save records what an update read: the extractions first, so that no
// stamp names one the shared store lacks, then the checkout's stamps.
func (x *Index) save(ctx context.Context, u *reading, removed []string) error {
	if x.db == nil {
		return nil
	}
	if len(u.extracts) > 0 {
		if err := x.shared.PutExtracts(ctx, u.extracts); err != nil {
			return err
		}
	}
	return x.db.SaveGraph(ctx, u.stamps, removed)
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
		if s.Format != Format || s.Variant != variantFor(rel) {
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

// variantFor is the variant of rel's extraction (store.ExtractKey): its
// language, and "/test" where the path makes its functions tests (Go's
// _test.go, Python's test modules), the only way a path changes what
// the extractor reads.
func variantFor(rel string) string {
	if path.Base(rel) == "go.mod" {
		return "go.mod"
	}
	if isTSConfig(rel) {
		return tsconfigLanguage
	}
	language := syntax.LanguageFor(rel)
	if language == nil {
		return ""
	}
	switch lang.Family(language.Name) {
	case lang.Go:
		if strings.HasSuffix(rel, "_test.go") {
			return language.Name + "/test"
		}
	case lang.Python:
		if pyTestPath(rel) {
			return language.Name + "/test"
		}
	}
	return language.Name
}

// reading is what an update read, to save.
type reading struct {
	stamps   []store.GraphFile
	extracts []store.Extract
	parsed   int // files parsed
	shared   int // files whose extraction the shared store had
}

// hashed is a file read and hashed whose content the index does not hold.
type hashed struct {
	candidate
	stamp store.GraphStamp // Defs and Calls unknown yet
	fetch bool             // its extraction is wanted now (a resolved graph is patched with it)
}

// read reads the files of todo: each is hashed (on every core); a file
// whose content the index holds gets a new stamp only; one whose
// extraction the shared store has (another checkout's, an earlier
// version's) is taken from it; the rest are parsed.
func (x *Index) read(ctx context.Context, todo []candidate, start time.Time, progress func(done, total int)) (*reading, error) {
	u := &reading{}
	if len(todo) == 0 {
		return u, nil
	}
	var mu sync.Mutex
	var fresh []hashed
	err := x.parallel(ctx, len(todo), func(i int) error {
		c := todo[i]
		_, s, ok := x.readSource(c, start)
		if !ok {
			return nil
		}
		h := hashed{candidate: c, stamp: s}
		x.mu.Lock()
		old, had := x.stamps[c.rel]
		if had && old.SHA256 == h.stamp.SHA256 && old.Format == Format && old.Variant == h.stamp.Variant {
			old.Identity = h.stamp.Identity
			x.stamps[c.rel] = old
			x.mu.Unlock()
			mu.Lock()
			u.stamps = append(u.stamps, store.GraphFile{Path: c.rel, GraphStamp: old})
			mu.Unlock()
			return nil
		}
		h.fetch = x.built != nil || x.files[c.rel] != nil
		x.mu.Unlock()
		mu.Lock()
		fresh = append(fresh, h)
		mu.Unlock()
		return nil
	})
	if err != nil || len(fresh) == 0 {
		return u, err
	}
	parse, err := x.fromShared(ctx, fresh, u)
	if err != nil {
		return nil, err
	}
	var done int
	err = x.parallel(ctx, len(parse), func(i int) error {
		h := parse[i]
		s, f, ok, err := x.parseOne(ctx, h.candidate, start)
		if err != nil || !ok {
			return err
		}
		x.mu.Lock()
		x.setFile(h.rel, f, s)
		x.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		u.stamps = append(u.stamps, store.GraphFile{Path: h.rel, GraphStamp: s})
		if x.db != nil {
			u.extracts = append(u.extracts, store.Extract{ExtractKey: s.Key(), ExtractInfo: store.ExtractInfo{Defs: s.Defs, Calls: s.Calls}, Data: stored(f)})
		}
		u.parsed++
		done++
		if progress != nil {
			progress(done, len(parse))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// fromShared takes from the shared store the extractions of fresh it has
// (their data only where wanted now; the rest are loaded when a query
// needs them) and returns the files left to parse.
func (x *Index) fromShared(ctx context.Context, fresh []hashed, u *reading) ([]hashed, error) {
	if x.shared == nil {
		return fresh, nil
	}
	keys := make([]store.ExtractKey, 0, len(fresh))
	for _, h := range fresh {
		keys = append(keys, h.stamp.Key())
	}
	have, err := x.shared.HaveExtracts(ctx, keys)
	if err != nil {
		return nil, err
	}
	// The data of the files a resolved graph is patched with, now.
	got := map[store.ExtractKey][]byte{}
	var want []store.ExtractKey
	for _, h := range fresh {
		if _, ok := have[h.stamp.Key()]; ok && h.fetch {
			want = append(want, h.stamp.Key())
		}
	}
	if len(want) > 0 {
		corrupt, err := x.shared.GetExtracts(ctx, want, func(k store.ExtractKey, data []byte) error {
			got[k] = append([]byte(nil), data...)
			return nil
		})
		if err != nil {
			return nil, err
		}
		x.note(corrupt...)
	}
	var parse []hashed
	intern := map[string]string{}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, h := range fresh {
		k := h.stamp.Key()
		info, ok := have[k]
		var f *File
		if ok && h.fetch {
			data, fetched := got[k]
			if fetched {
				var err error
				if f, err = fromStore(h.rel, data, intern); err != nil {
					x.notes = append(x.notes, fmt.Sprintf("shared store: the extraction of %s in %s does not decode (%v); it is read again", h.rel, x.shared.Where(), err))
				} else {
					f.hash = k.SHA256
				}
			}
			ok = f != nil
		}
		if !ok {
			parse = append(parse, h)
			continue
		}
		s := h.stamp
		s.Defs, s.Calls = info.Defs, info.Calls
		x.setFile(h.rel, f, s)
		u.stamps = append(u.stamps, store.GraphFile{Path: h.rel, GraphStamp: s})
		u.shared++
	}
	return parse, nil
}

// parallel runs do(0..n-1) on every core, stopping at the first error.
func (x *Index) parallel(ctx context.Context, n int, do func(i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		next  = make(chan int)
		mu    sync.Mutex
		first error
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// readSource reads c's content: ok false when it is gone (it is forgotten
// then); a file that cannot be read as text (binary, too large, not
// UTF-8) is not code the graph can read, and is kept as an empty file so
// that its stamp spares reading it again until it changes (src nil).
func (x *Index) readSource(c candidate, start time.Time) (src []byte, s store.GraphStamp, ok bool) {
	src, err := x.root.ReadText(c.rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			x.mu.Lock()
			if _, had := x.stamps[c.rel]; had {
				delete(x.stamps, c.rel)
				delete(x.files, c.rel)
				x.invalidate()
			}
			x.mu.Unlock()
			return nil, s, false // gone since the walk
		}
		src = nil
	}
	return src, store.GraphStamp{SHA256: sha256.Sum256(src), Variant: variantFor(c.rel), Identity: c.id.Settled(start), Format: Format}, true
}

// parseOne reads one file again and extracts what the graph needs of it.
func (x *Index) parseOne(ctx context.Context, c candidate, start time.Time) (store.GraphStamp, *File, bool, error) {
	src, s, ok := x.readSource(c, start)
	if !ok {
		return s, nil, false, nil
	}
	f := &File{Path: c.rel}
	var err error
	if src == nil {
		if l := syntax.LanguageFor(c.rel); l != nil {
			f.Language = l.Name
		}
	} else if f, err = Extract(ctx, x.cache, c.rel, src); errors.Is(err, syntax.ErrTooBig) {
		// Kept as an empty file, like one that is not text: its stamp
		// spares measuring it again until it changes.
		x.tooBigMu.Lock()
		x.tooBig = append(x.tooBig, fmt.Sprintf("code graph: %v; the graph has none of its definitions or calls (grep path=%s finds names in it)", err, c.rel))
		x.tooBigMu.Unlock()
		f = &File{Path: c.rel, Language: syntax.LanguageFor(c.rel).Name}
	} else if err != nil {
		if ctx.Err() != nil {
			return s, nil, false, ctx.Err()
		}
		return s, nil, false, fmt.Errorf("codegraph: %s: %w", c.rel, err)
	} else if f == nil {
		f = &File{Path: c.rel}
	}
	f.hash = s.SHA256
	s.Defs, s.Calls = len(f.Defs), len(f.Calls)
	return s, f, true, nil
}

// setFile makes f (nil: in the shared store) what the index holds of rel.
// Call with x.mu held.
func (x *Index) setFile(rel string, f *File, s store.GraphStamp) {
	x.stamps[rel] = s
	if prev := x.files[rel]; f != nil && prev != nil && x.built != nil {
		if _, ok := x.changed[rel]; !ok {
			if x.changed == nil {
				x.changed = map[string]*File{}
			}
			x.changed[rel] = prev
		}
	} else {
		x.invalidate()
	}
	x.files[rel] = f
}

// note keeps what a person should hear. Call without x.mu.
func (x *Index) note(s ...string) {
	if len(s) == 0 {
		return
	}
	x.mu.Lock()
	x.notes = append(x.notes, s...)
	x.mu.Unlock()
}

// load reads from the shared store the files indexed and not yet in
// memory. A file whose extraction is missing or corrupt there (another
// process replaced it, a row was damaged) is read again from disk now.
// Call with x.mu held.
func (x *Index) load(ctx context.Context) error {
	want := map[store.ExtractKey][]string{}
	for rel, f := range x.files {
		if f == nil {
			k := x.stamps[rel].Key()
			want[k] = append(want[k], rel)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if x.shared == nil {
		return errors.New("codegraph: files of the index are missing and there is no store to read them from")
	}
	keys := make([]store.ExtractKey, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	intern := map[string]string{}
	corrupt, err := x.shared.GetExtracts(ctx, keys, func(k store.ExtractKey, data []byte) error {
		for _, rel := range want[k] {
			f, err := fromStore(rel, data, intern)
			if err != nil {
				x.notes = append(x.notes, fmt.Sprintf("shared store: the extraction of %s in %s does not decode (%v); it is read again", rel, x.shared.Where(), err))
				return nil
			}
			f.hash = k.SHA256
			x.files[rel] = f
		}
		delete(want, k)
		return nil
	})
	if err != nil {
		return err
	}
	x.notes = append(x.notes, corrupt...)
	x.invalidate()
	if len(want) == 0 {
		return nil
	}
	var again []candidate
	for _, rels := range want {
		for _, rel := range rels {
			s := x.stamps[rel]
			again = append(again, candidate{rel: rel, id: s.Identity})
		}
	}
	return x.reread(ctx, again)
}

// reread parses files again whose extraction the shared store could not
// give, and saves what it read. Call with x.mu held.
func (x *Index) reread(ctx context.Context, cs []candidate) error {
	if x.root == nil {
		return errors.New("codegraph: files of the index are missing from its store")
	}
	u := &reading{}
	for _, c := range cs {
		s, f, ok, err := x.parseOne(ctx, c, time.Time{})
		if err != nil {
			return err
		}
		if !ok {
			delete(x.files, c.rel)
			delete(x.stamps, c.rel)
			continue
		}
		s.MTime = 0 // hashed again next time
		x.stamps[c.rel], x.files[c.rel] = s, f
		u.stamps = append(u.stamps, store.GraphFile{Path: c.rel, GraphStamp: s})
		u.extracts = append(u.extracts, store.Extract{ExtractKey: s.Key(), ExtractInfo: store.ExtractInfo{Defs: s.Defs, Calls: s.Calls}, Data: stored(f)})
	}
	return x.save(ctx, u, nil)
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
	if x.built == nil && x.shared != nil && x.direct {
		gen := x.genOf()
		b, err := fromSnapshot(ctx, x.shared, gen, x.stamps)
		if err != nil {
			x.notes = append(x.notes, fmt.Sprintf("shared store: the graph's snapshot could not be read from %s (%v); the graph is resolved from the files", x.shared.Where(), err))
		}
		x.built = b
	}
	if x.built == nil {
		if err := x.load(ctx); err != nil {
			return nil, nil, err
		}
		x.built = resolve(x.files)
		x.built.gen = x.genOf()
	}
	b = x.built
	x.rw.RLock()
	if b.lazy != nil {
		b.lazy.mu.Lock()
		return b, func() { b.lazy.mu.Unlock(); x.rw.RUnlock() }, nil
	}
	return b, x.rw.RUnlock, nil
}

// query runs fn on the resolved graph. A snapshot that fails it midway
// (a row corrupt or gone, the database lost) is said and dropped, and fn
// runs again on the graph resolved from the files.
func (x *Index) query(ctx context.Context, fn func(b *built) error) error {
	for {
		b, release, err := x.graph(ctx)
		if err != nil {
			return err
		}
		err = fn(b)
		if err == nil && b.lazy != nil && b.lazy.err != nil {
			err = b.lazy.err
		}
		release()
		var le *errLazy
		if !errors.As(err, &le) {
			return err
		}
		x.mu.Lock()
		x.notes = append(x.notes, le.why)
		if x.built == b {
			x.invalidate()
		}
		x.direct = false // this process resolves from now on
		x.mu.Unlock()
	}
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
		x.stamps[rel] = store.GraphStamp{SHA256: f.hash, Variant: variantFor(rel), Format: Format, Defs: len(f.Defs), Calls: len(f.Calls)}
	}
	x.invalidate()
}

// ParsedNow says, for content this process parsed (an Update read it),
// whether it parses without a syntax error: of rel's content whose
// SHA-256 is sha, clean, or known false when it was not parsed here. It
// answers from a copy of what the index holds now, taking none of the
// index's locks, so it answers while the index resolves its graph.
func (x *Index) ParsedNow() func(rel string, sha [32]byte) (clean, known bool) {
	type parse struct {
		hash   [32]byte
		broken bool
	}
	x.mu.Lock()
	seen := make(map[string]parse, len(x.files))
	for rel, f := range x.files {
		if f != nil && f.parsed {
			seen[rel] = parse{f.hash, f.broken}
		}
	}
	x.mu.Unlock()
	return func(rel string, sha [32]byte) (bool, bool) {
		p, ok := seen[rel]
		if !ok || p.hash != sha {
			return false, false
		}
		return !p.broken, true
	}
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
