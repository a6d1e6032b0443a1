package syntax

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// DefaultParseCacheBytes bounds the parse cache by the source bytes of the
// trees it keeps (a dense source counts for more: see charge). A tree that
// the cache keeps costs 25-33 times its source (measured: GOROOT's net and
// cmd/compile/internal/ssa, Python 3.11's email and test/test_asyncio), so
// 64 MiB of source keeps the cache to about 2 GiB.
const DefaultParseCacheBytes = 64 << 20

// chargeRatio is the estimated tree bytes (Size.TreeBytes) per byte of
// source that real code stays under: 46-78 in the files bound.go lists,
// 87 for a one-line Go function. A file of one-character lines has 336.
const chargeRatio = 100

// charge is what a source counts for against the cache's bound: its bytes,
// or for a source denser than real code (a file of one-character lines,
// whose tree costs ~300 times its size), its estimated tree over
// chargeRatio, so that such files cannot make the cache's memory many
// times what the bound implies (at most about 100 times the bound,
// against about 30 for real code).
func charge(s Size) int {
	return max(s.Bytes, s.TreeBytes()/chargeRatio)
}

// Tree is a parsed file handed out by the ParseCache. Its holder has it to
// itself (tree-sitter trees are not safe for concurrent use) until Release;
// a Tree must not be used after Release.
type Tree struct {
	*sitter.Tree
	Lang   *Language
	Source []byte

	e *cacheEntry
}

// Release gives the tree back to the cache. Calling it twice is a no-op.
func (t *Tree) Release() {
	if t.e == nil {
		return
	}
	e := t.e
	t.e = nil
	if e.cache == nil { // a tree of its own (ParseOnce)
		e.inUse.Unlock()
		e.tree.Close()
		return
	}
	e.cache.release(e)
}

type cacheKey struct {
	path string
	lang string
	hash [32]byte
}

type cacheEntry struct {
	cache   *ParseCache
	key     cacheKey
	tree    *sitter.Tree
	src     []byte
	charged int        // what it counts for against the bound (charge)
	inUse   sync.Mutex // held by the one holder of the tree
	refs    int        // holders plus waiters, guarded by cache.mu
	evicted bool       // guarded by cache.mu
	gen     uint64     // the scan that last touched it (0: none), guarded by cache.mu
	elem    *list.Element
}

// ParseCache keeps parsed trees keyed by path and content hash, so a file
// is parsed once however many tools look at it. It evicts the least
// recently used trees past its byte bound, and closes a tree only when it
// is both evicted and released. The zero value is not usable; call
// NewParseCache.
type ParseCache struct {
	mu       sync.Mutex
	maxBytes int
	used     int
	byKey    map[cacheKey]*cacheEntry
	byPath   map[string]*cacheEntry
	lru      *list.List // front = most recent
	scans    uint64     // scans started, for Scan generations
	hits     int
	misses   int
}

// NewParseCache returns a cache bounded to maxBytes of source (<= 0 means
// DefaultParseCacheBytes).
func NewParseCache(maxBytes int) *ParseCache {
	if maxBytes <= 0 {
		maxBytes = DefaultParseCacheBytes
	}
	return &ParseCache{
		maxBytes: maxBytes,
		byKey:    map[cacheKey]*cacheEntry{},
		byPath:   map[string]*cacheEntry{},
		lru:      list.New(),
	}
}

// Parse returns the tree of src (the content of the file at rel, in lang),
// from the cache when the same content was parsed before. The caller must
// Release the tree.
func (c *ParseCache) Parse(ctx context.Context, rel string, lang *Language, src []byte) (*Tree, error) {
	return c.parseIn(ctx, 0, rel, lang, src)
}

// Scan is one pass over many files, such as a structural search. Its parses
// may evict trees from before the pass but never each other: under plain
// LRU, a pass over more source than the cache holds evicts every tree in
// turn, and the same pass repeated finds none. With a Scan, the part that
// fit stays for the next identical pass.
type Scan struct {
	c   *ParseCache
	gen uint64
}

// NewScan starts a pass over many files.
func (c *ParseCache) NewScan() *Scan {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scans++
	return &Scan{c: c, gen: c.scans}
}

// Parse is ParseCache.Parse within the pass.
func (s *Scan) Parse(ctx context.Context, rel string, lang *Language, src []byte) (*Tree, error) {
	return s.c.parseIn(ctx, s.gen, rel, lang, src)
}

// Cached is the pass's tree of src (the content of rel, in lang) when the
// cache holds one, and nil, parsing nothing, when it does not. The caller
// must Release a tree it gets.
func (s *Scan) Cached(rel string, lang *Language, src []byte) *Tree {
	return s.c.held(cacheKey{path: rel, lang: lang.Name, hash: sha256.Sum256(src)}, s.gen, lang, false)
}

// held hands out the tree the cache holds for key, for the scan gen, or
// returns nil (a miss, counted if count).
func (c *ParseCache) held(key cacheKey, gen uint64, lang *Language, count bool) *Tree {
	c.mu.Lock()
	e, ok := c.byKey[key]
	if !ok {
		if count {
			c.misses++
		}
		c.mu.Unlock()
		return nil
	}
	c.hits++
	e.refs++
	e.gen = gen
	c.lru.MoveToFront(e.elem)
	c.mu.Unlock()
	e.inUse.Lock()
	return &Tree{Tree: e.tree, Lang: lang, Source: e.src, e: e}
}

// parseIn parses for the scan gen (0: no scan).
func (c *ParseCache) parseIn(ctx context.Context, gen uint64, rel string, lang *Language, src []byte) (*Tree, error) {
	key := cacheKey{path: rel, lang: lang.Name, hash: sha256.Sum256(src)}
	if t := c.held(key, gen, lang, true); t != nil {
		return t, nil
	}

	tree, size, err := parse(ctx, lang, src, nil)
	if err != nil {
		return nil, err
	}
	e := &cacheEntry{cache: c, key: key, tree: tree, src: src, charged: charge(size), refs: 1, gen: gen}
	e.inUse.Lock()

	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		// Another caller parsed the same content meanwhile; keep theirs
		// in the cache and hand ours out uncached.
		e.evicted = true
		return &Tree{Tree: tree, Lang: lang, Source: src, e: e}, nil
	}
	if old, ok := c.byPath[rel]; ok && old.key.lang == lang.Name {
		c.evictLocked(old) // an older version of the same file is dead weight
	}
	if e.charged > c.maxBytes {
		e.evicted = true // too big to keep; still usable once
		return &Tree{Tree: tree, Lang: lang, Source: src, e: e}, nil
	}
	// Make room from the least recently used end. Within a scan, meeting a
	// tree the same scan touched means every tree left is the scan's own
	// (they are the more recent): keep them, and this one goes uncached.
	for c.used+e.charged > c.maxBytes {
		back := c.lru.Back().Value.(*cacheEntry)
		if gen != 0 && back.gen == gen {
			e.evicted = true
			return &Tree{Tree: tree, Lang: lang, Source: src, e: e}, nil
		}
		c.evictLocked(back)
	}
	e.elem = c.lru.PushFront(e)
	c.byKey[key] = e
	c.byPath[rel] = e
	c.used += e.charged
	return &Tree{Tree: tree, Lang: lang, Source: src, e: e}, nil
}

// ParseUncached parses src without keeping the tree: for one-shot callers
// (a CLI run over thousands of files) that would only churn the cache. The
// caller must Release the tree.
func (c *ParseCache) ParseUncached(ctx context.Context, lang *Language, src []byte) (*Tree, error) {
	return ParseOnce(ctx, lang, src)
}

// ParseOnce parses src into a tree that belongs to the caller alone; its
// Release closes it.
func ParseOnce(ctx context.Context, lang *Language, src []byte) (*Tree, error) {
	tree, _, err := parse(ctx, lang, src, nil)
	return owned(tree, lang, src, err)
}

// owned is a parse's tree (of lang, from src) as the caller's alone.
func owned(tree *sitter.Tree, lang *Language, src []byte, err error) (*Tree, error) {
	if err != nil {
		return nil, err
	}
	e := &cacheEntry{tree: tree, src: src, refs: 1, evicted: true}
	e.inUse.Lock()
	return &Tree{Tree: tree, Lang: lang, Source: src, e: e}, nil
}

// parsers are reused across parses; a parser is used by one goroutine at a
// time.
var parsers = sync.Pool{New: func() any { return sitter.NewParser() }}

// rangedParsers parse only some ranges of their source; their ranges are
// set before each parse, so they are kept apart from parsers.
var rangedParsers = sync.Pool{New: func() any { return sitter.NewParser() }}

// parse parses src (only ranges of it, unless nil), and says what TooBig
// measured of it; a source too large to parse is refused with the
// *TooBigError, wrapped. The whole source is measured either way, so that
// a file is refused alike however much of it is parsed.
func parse(ctx context.Context, lang *Language, src []byte, ranges []sitter.Range) (*sitter.Tree, Size, error) {
	// Cancellation is honoured before the parse, not during it: go-tree-sitter
	// arms a parser's cancel flag from a goroutine that can fire after
	// ParseCtx has returned, and a pooled parser so armed refuses every later
	// parse. One file's parse is bounded; a caller cancels between files.
	if err := ctx.Err(); err != nil {
		return nil, Size{}, err
	}
	size, err := measured(src)
	if err != nil {
		return nil, size, fmt.Errorf("syntax: %s: %w", lang.Name, err)
	}
	pool := &parsers
	if ranges != nil {
		pool = &rangedParsers
	}
	p := pool.Get().(*sitter.Parser)
	defer pool.Put(p)
	p.SetLanguage(lang.Grammar)
	if ranges != nil {
		p.SetIncludedRanges(ranges)
	}
	tree, err := p.ParseCtx(context.WithoutCancel(ctx), nil, src)
	if err != nil {
		p.Reset()
		return nil, size, fmt.Errorf("syntax: parse %s: %w", lang.Name, err)
	}
	return tree, size, nil
}

func (c *ParseCache) release(e *cacheEntry) {
	e.inUse.Unlock()
	c.mu.Lock()
	e.refs--
	closeNow := e.evicted && e.refs == 0
	c.mu.Unlock()
	if closeNow {
		e.tree.Close()
	}
}

func (c *ParseCache) evictLocked(e *cacheEntry) {
	if e.evicted {
		return
	}
	e.evicted = true
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
	}
	delete(c.byKey, e.key)
	if c.byPath[e.key.path] == e {
		delete(c.byPath, e.key.path)
	}
	c.used -= e.charged
	if e.refs == 0 {
		e.tree.Close()
	}
}

// Close evicts every tree; trees still held are closed on their Release.
func (c *ParseCache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		c.evictLocked(e.Value.(*cacheEntry))
		e = next
	}
}

// ParseCacheStats reports the cache's state, for benchmarks and tests.
type ParseCacheStats struct {
	Trees, Bytes, Hits, Misses int
}

// Stats returns the cache's current counts.
func (c *ParseCache) Stats() ParseCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ParseCacheStats{Trees: c.lru.Len(), Bytes: c.used, Hits: c.hits, Misses: c.misses}
}

// ParseRanges parses only the given ranges of src (sorted, not
// overlapping, none empty), as if the text between them were not there;
// the tree's positions are src's. Its Release closes it. It is for a
// caller that knows the ranges hold whole statements.
func ParseRanges(ctx context.Context, lang *Language, src []byte, ranges []sitter.Range) (*Tree, error) {
	if len(ranges) == 0 {
		return nil, fmt.Errorf("syntax: parse %s: no ranges", lang.Name)
	}
	tree, _, err := parse(ctx, lang, src, ranges)
	return owned(tree, lang, src, err)
}
