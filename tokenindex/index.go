package tokenindex

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"io/fs"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"cchub/store"
	"cchub/textfmt"
	"cchub/workspace"
)

// Variant is the shared store's variant of a filter (store.ExtractKey).
const Variant = store.TokensVariant

// MaxFileBytes is the largest file indexed; larger ones are always read.
const MaxFileBytes = 16 << 20

// Lacking is the files a token index knows cannot hold every one of some
// literals, each with the workspace.Identity it had when read.
type Lacking struct {
	// read from the pack or the store once (Lacks), by the hash of the
	// path: tens of thousands of paths kept as strings would cost the
	// process megabytes. Two paths of one hash, and with it one Identity,
	// are not a risk worth a byte.
	files map[uint64]workspace.Identity
	clean map[uint64]workspace.Identity // the files that parse cleanly, of the rest
	seed  maphash.Seed
	// or answered from memory, file by file, as asked (Index.Lacks)
	x    *Index
	lits [][]byte
}

// Lacks reads db's token index (all of it, one filter at a time, keeping
// none) and returns the files that cannot hold every one of lits (those
// under three bytes say nothing), and of the others, those known to parse
// cleanly. With no index it is empty.
func Lacks(ctx context.Context, root *workspace.Root, db *store.Store, lits [][]byte) (*Lacking, error) {
	l := &Lacking{files: map[uint64]workspace.Identity{}, clean: map[uint64]workspace.Identity{}, seed: maphash.MakeSeed()}
	lits = Usable(lits)
	reset := func() {
		clear(l.files)
		clear(l.clean)
	}
	_, err := eachTrusted(ctx, root, db, reset, func(path []byte, id workspace.Identity, flt Filter, clean bool) {
		switch {
		case len(lits) > 0 && !flt.MayContainAll(lits):
			l.files[maphash.Bytes(l.seed, path)] = id
		case clean:
			l.clean[maphash.Bytes(l.seed, path)] = id
		}
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// eachTrusted calls fn with every file of db's index whose Identity may
// vouch for its content (Known) and whose filter decodes; the rest are read
// again. It reads the pack where it is of the store's generation, else
// the store; a pack found damaged part way is dropped, reset called, and
// the store read. path and flt are fn's only during the call. It returns
// the generation read.
func eachTrusted(ctx context.Context, root *workspace.Root, db *store.Store, reset func(), fn func(path []byte, id workspace.Identity, flt Filter, clean bool)) (int64, error) {
	gen, err := db.TokenGeneration(ctx)
	if err != nil {
		return 0, err
	}
	if root != nil {
		switch packed, err := eachPacked(ctx, root, gen, fn); {
		case packed && err == nil:
			return gen, nil
		case ctx.Err() != nil:
			return 0, ctx.Err()
		case packed:
			reset() // damaged: the store is the truth
		}
	}
	// The driver copies each filter out of the database: megabytes of
	// garbage, which must not be let grow into the process's peak.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// Read in one transaction with its generation, so that an index
	// rebuilt meanwhile is not mixed with the one begun.
	return gen, db.TokenSnapshot(ctx, func(g int64) error {
		gen = g
		return nil
	}, func(f store.TokenFile) error {
		if !f.Identity.Known() {
			return nil
		}
		if flt, err := Decode(f.Filter); err == nil {
			fn([]byte(f.Path), f.Identity, flt, f.Clean == store.ParsesClean)
		}
		return nil
	})
}

// Has says whether the file rel (d its directory entry) is one that lacks
// the literals, unchanged since it was read: the same workspace.Identity.
// Unsure, it says false, and the caller reads the file.
func (l *Lacking) Has(rel string, d fs.DirEntry) bool { return l.says(rel, d, false) }

// Clean says whether the file rel (d its directory entry), unchanged
// since it was read, parses without a syntax error; unsure, false.
func (l *Lacking) Clean(rel string, d fs.DirEntry) bool { return l.says(rel, d, true) }

// says answers Has, or with clean Clean: from memory, or from the set
// read once.
func (l *Lacking) says(rel string, d fs.DirEntry, clean bool) bool {
	if l == nil {
		return false
	}
	var id workspace.Identity
	if l.x != nil {
		h, ok := l.x.files[rel]
		switch {
		case !ok:
			return false
		case clean && !h.clean:
			return false
		case !clean && (len(l.lits) == 0 || h.f.MayContainAll(l.lits)):
			return false
		}
		id = h.id
	} else {
		read := l.files
		if clean {
			read = l.clean
		}
		var ok bool
		if id, ok = read[maphash.String(l.seed, rel)]; !ok {
			return false
		}
	}
	return holds(id, d)
}

// holds says whether d, a file's entry, is of a regular file whose
// content id vouches for.
func holds(id workspace.Identity, d fs.DirEntry) bool {
	info, err := d.Info()
	return err == nil && info.Mode().IsRegular() && id.Same(workspace.IdentityOf(info))
}

// Index is a token index held in memory, for a long-lived process that
// asks it many questions (the MCP server's hub): every filter, in arenas
// of a few MiB, with the Identity of their files.
type Index struct {
	Gen   int64 // the store's TokenGeneration when it was loaded
	files map[string]held
}

type held struct {
	id    workspace.Identity
	f     Filter
	clean bool
}

// Load reads root's (its pack's, or db's) whole token index into memory.
func Load(ctx context.Context, root *workspace.Root, db *store.Store) (*Index, error) {
	x := &Index{files: map[string]held{}}
	var arena []byte
	gen, err := eachTrusted(ctx, root, db, func() { clear(x.files) }, func(path []byte, id workspace.Identity, flt Filter, clean bool) {
		if cap(arena)-len(arena) < len(flt.set) {
			arena = make([]byte, 0, max(4<<20, len(flt.set)))
		}
		arena = append(arena, flt.set...)
		flt.set = arena[len(arena)-len(flt.set):] // the copy, not the reader's buffer
		x.files[string(path)] = held{id, flt, clean}
	})
	if err != nil {
		return nil, err
	}
	x.Gen = gen
	return x, nil
}

// Lacks is the package's Lacks, answered from memory: each file's filter
// is asked when Has asks about the file, and only then.
func (x *Index) Lacks(lits [][]byte) *Lacking {
	return &Lacking{x: x, lits: Usable(lits)}
}

// Usable keeps the literals a filter can answer for (three bytes or more).
func Usable(lits [][]byte) [][]byte {
	var out [][]byte
	for _, l := range lits {
		if len(l) >= 3 {
			out = append(out, l)
		}
	}
	return out
}

// Stats says what Update did.
type Stats struct {
	Files   int   `json:"files"`   // text files indexed
	Read    int   `json:"read"`    // read because new or changed
	Built   int   `json:"built"`   // filters built (the rest were known by content)
	Fetched int   `json:"fetched"` // filters taken from the shared store
	Removed int   `json:"removed"` // forgotten: gone, or no longer text
	Bytes   int64 `json:"bytes"`   // the filters' size
	// Syntax counts the files whose syntax was recorded, Parsed those
	// of them Syntax.Clean parsed to tell (the rest it knew).
	Syntax int `json:"syntax"`
	Parsed int `json:"parsed"`
	// SyntaxShared counts those of them whose syntax the shared store
	// had (another checkout's parse of the same content).
	SyntaxShared int `json:"syntax_shared,omitempty"`
}

// Syntax says which files' syntax the index keeps (store.TokenFile.Clean:
// whether the content parses without a syntax error, which lets a
// structural search parse only some of it), and tells it.
type Syntax struct {
	// Wants says whether the syntax of the file rel is kept.
	Wants func(rel string) bool
	// Clean says whether src, the content of rel (sha its SHA-256),
	// parses without a syntax error, and whether it parsed src to tell
	// (it may know from elsewhere). It is called on every core.
	Clean func(rel string, sha [32]byte, src []byte) (clean, parsed bool)
	// Known, if not nil, says it without parsing when it can (known
	// false: Clean is asked, after the shared store). Shared, if not
	// nil, names the language rel is parsed as: the shared store keeps
	// a syntax record per content and language (variant
	// store.SyntaxVariant+language: the same bytes parse differently as
	// another language), through which a checkout learns what another
	// parsed of the same content instead of parsing it again, and tells
	// what it learnt.
	Known  func(rel string, sha [32]byte) (clean, known bool)
	Shared func(rel string) string
}

// SyntaxFormat is the format of a syntax record in the shared store: one
// byte, store.ParsesClean or store.ParsesBroken.
const SyntaxFormat = 1

// Update brings db's token index up to date with the workspace: files
// whose workspace.Identity does not vouch for what was read are read, and a filter is built for each
// content neither db nor sh (if not nil) knows; sh is given the filters
// built. With sx, the syntax of the files it wants is kept too: read for
// those whose syntax is not known yet. Binary files, and files over
// MaxFileBytes, are not indexed.
func Update(ctx context.Context, root *workspace.Root, db *store.Store, sh store.Shared, sx *Syntax) (Stats, error) {
	var st Stats
	start := time.Now()
	old := map[string]store.TokenFile{}
	if err := db.TokenFiles(ctx, func(f store.TokenFile) error {
		f.Filter = append([]byte(nil), f.Filter...)
		old[f.Path] = f
		return nil
	}); err != nil {
		return st, err
	}
	var todo []cand
	seen := map[string]bool{}
	err := root.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > MaxFileBytes {
			return nil
		}
		seen[rel] = true
		c := cand{rel, workspace.IdentityOf(info)}
		if o, ok := old[rel]; !ok || !o.Identity.Same(c.id) || !decodes(o.Filter) ||
			o.Clean == 0 && sx != nil && sx.Wants(rel) {
			todo = append(todo, c)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	var removed []string
	for rel := range old {
		if !seen[rel] {
			removed = append(removed, rel)
		}
	}

	// Read and hash what changed, on every core, a bounded batch at a time:
	// only a batch's sources are held while the shared store is asked
	// which filters it already has.
	var put []store.TokenFile
	var recorded, parsed atomic.Int64
	// Syntax not known here is asked of the shared store, and what is
	// learnt here told to it.
	askShared := sx != nil && sx.Shared != nil && sh != nil
	built := map[[32]byte][]byte{} // the filters this Update built, by content
	for lo := 0; lo < len(todo); {
		hi, held := lo, int64(0)
		for hi < len(todo) && hi-lo < maxBatchFiles && (hi == lo || held+todo[hi].id.Size <= maxBatchBytes) {
			held += todo[hi].id.Size
			hi++
		}
		results, err := readBatch(ctx, root, todo[lo:hi], old, start, sx, askShared, &recorded, &parsed)
		if err != nil {
			return st, err
		}
		if askShared {
			n, err := syntaxOf(ctx, sh, sx, results, &parsed)
			if err != nil {
				return st, err
			}
			st.SyntaxShared += n
		}
		var need []*read
		for k, r := range results {
			if r == nil {
				if _, ok := old[todo[lo+k].rel]; ok {
					removed = append(removed, todo[lo+k].rel)
				}
				continue
			}
			st.Read++
			if r.src != nil {
				need = append(need, r)
			} else {
				put = append(put, r.TokenFile)
			}
		}
		fetched, nbuilt, err := filtersOf(ctx, sh, need, built)
		if err != nil {
			return st, err
		}
		st.Fetched += fetched
		st.Built += nbuilt
		for _, r := range need {
			put = append(put, r.TokenFile)
		}
		lo = hi
	}
	if err := db.SaveTokens(ctx, put, removed); err != nil {
		return st, err
	}
	if err := writePack(ctx, root, db); err != nil {
		return st, fmt.Errorf("tokenindex: write the token index's pack (%s in the state directory): %w; the index in the store is whole, and is read instead", PackName, err)
	}
	st.Removed = len(removed)
	st.Syntax, st.Parsed = int(recorded.Load()), int(parsed.Load())
	for _, rel := range removed {
		delete(old, rel)
	}
	for _, f := range put {
		old[f.Path] = f
	}
	st.Files = len(old)
	for _, f := range old {
		st.Bytes += int64(len(f.Filter))
	}
	return st, nil
}

// cand is a file Update reads: new, or changed since the index.
type cand struct {
	rel string
	id  workspace.Identity // the walk's
}

// A batch of Update's reads holds at most this many files and, unless one
// file is larger, this many bytes of their sources (variables: tests make
// batches small).
var (
	maxBatchFiles       = 1024
	maxBatchBytes int64 = 32 << 20
)

// read is a file Update read: its row, and its source until its filter
// is known.
type read struct {
	store.TokenFile
	src []byte // nil once the filter is known
	// text is the source while its syntax is asked of the shared store;
	// tell says the syntax was learnt here, for the shared store.
	text []byte
	tell bool
}

func cleanness(clean bool) int {
	if clean {
		return store.ParsesClean
	}
	return store.ParsesBroken
}

// syntaxOf gives the files of results whose syntax is not known yet the
// shared store's record of their content, parses the rest (on every
// core), and puts in the shared store what this batch learnt. It returns
// how many the store told.
func syntaxOf(ctx context.Context, sh store.Shared, sx *Syntax, results []*read, parsed *atomic.Int64) (int, error) {
	byKey := map[store.ExtractKey][]*read{}
	var keys []store.ExtractKey
	for _, r := range results {
		if r == nil || r.text == nil {
			continue
		}
		k := store.ExtractKey{SHA256: r.SHA256, Variant: store.SyntaxVariant + sx.Shared(r.Path), Format: SyntaxFormat}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	told := 0
	if len(keys) > 0 {
		if _, err := sh.GetExtracts(ctx, keys, func(k store.ExtractKey, data []byte) error {
			if len(data) != 1 || (data[0] != store.ParsesClean && data[0] != store.ParsesBroken) {
				return nil // parsed below
			}
			for _, r := range byKey[k] {
				r.Clean, r.text = int(data[0]), nil
				told++
			}
			return nil
		}); err != nil {
			return 0, err
		}
	}
	var left []*read
	for _, r := range results {
		if r != nil && r.text != nil {
			left = append(left, r)
		}
	}
	onEveryCore(ctx, len(left), func(k int) {
		r := left[k]
		clean, didParse := sx.Clean(r.Path, r.SHA256, r.text)
		r.Clean, r.text, r.tell = cleanness(clean), nil, true
		if didParse {
			parsed.Add(1)
		}
	})
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var put []store.Extract
	seen := map[store.ExtractKey]bool{}
	for _, r := range results {
		if r == nil || !r.tell {
			continue
		}
		r.tell = false
		k := store.ExtractKey{SHA256: r.SHA256, Variant: store.SyntaxVariant + sx.Shared(r.Path), Format: SyntaxFormat}
		if !seen[k] {
			seen[k] = true
			put = append(put, store.Extract{ExtractKey: k, Data: []byte{byte(r.Clean)}})
		}
	}
	if len(put) > 0 {
		if err := sh.PutExtracts(ctx, put); err != nil {
			return 0, err
		}
	}
	return told, nil
}

// readBatch reads and hashes the files todo on every core; a file gone,
// grown past MaxFileBytes or binary since the walk is nil. A file whose
// content is as old says takes old's filter and syntax; a new one keeps
// its source for filtersOf.
func readBatch(ctx context.Context, root *workspace.Root, todo []cand, old map[string]store.TokenFile, start time.Time, sx *Syntax, askShared bool, recorded, parsed *atomic.Int64) ([]*read, error) {
	results := make([]*read, len(todo))
	onEveryCore(ctx, len(todo), func(k int) {
		c := todo[k]
		src, err := root.ReadInto(c.rel, nil, MaxFileBytes)
		if err != nil || workspace.IsBinary(src) {
			return // gone, grown, or not text: not indexed
		}
		r := &read{TokenFile: store.TokenFile{Path: c.rel, SHA256: sha256.Sum256(src), Identity: c.id.Settled(start)}}
		if o, ok := old[c.rel]; ok && o.SHA256 == r.SHA256 {
			r.Clean = o.Clean
			if decodes(o.Filter) {
				r.Filter = o.Filter
			}
		}
		if r.Clean == 0 && sx != nil && sx.Wants(c.rel) {
			recorded.Add(1)
			if sx.Known != nil {
				if clean, known := sx.Known(c.rel, r.SHA256); known {
					r.Clean, r.tell = cleanness(clean), askShared
				}
			}
			if r.Clean == 0 && askShared {
				r.text = src // asked of the shared store first (syntaxOf)
			} else if r.Clean == 0 {
				clean, didParse := sx.Clean(c.rel, r.SHA256, src)
				r.Clean = cleanness(clean)
				if didParse {
					parsed.Add(1)
				}
			}
		}
		if r.Filter == nil {
			r.src = src
		}
		results[k] = r
	})
	return results, ctx.Err()
}

// onEveryCore calls do(0..n-1), each once, on as many goroutines as
// there are cores, until ctx ends.
func onEveryCore(ctx context.Context, n int, do func(k int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				do(k)
			}
		}()
	}
	wg.Wait()
}

// filtersOf gives the files need their filters: the one this Update
// built for the same content in an earlier batch, else the shared store's
// where it has it, else one built now (once per content, and added to
// built). It returns how many it fetched and how many it built, and puts
// what it built in the shared store.
func filtersOf(ctx context.Context, sh store.Shared, need []*read, built map[[32]byte][]byte) (fetched, nbuilt int, err error) {
	byKey := map[store.ExtractKey][]*read{}
	var keys []store.ExtractKey
	for _, r := range need {
		if f := built[r.SHA256]; f != nil {
			r.Filter, r.src = f, nil
			continue
		}
		k := store.ExtractKey{SHA256: r.SHA256, Variant: Variant, Format: Format}
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], r)
	}
	if sh != nil && len(keys) > 0 {
		have, err := sh.HaveExtracts(ctx, keys)
		if err != nil {
			return 0, 0, err
		}
		var want []store.ExtractKey
		for k := range have {
			want = append(want, k)
		}
		if len(want) > 0 {
			if _, err := sh.GetExtracts(ctx, want, func(k store.ExtractKey, data []byte) error {
				if !decodes(data) {
					return nil // built again below
				}
				for _, r := range byKey[k] {
					r.Filter, r.src = append([]byte(nil), data...), nil
					fetched++
				}
				return nil
			}); err != nil {
				return 0, 0, err
			}
		}
	}
	var put []store.Extract
	for _, k := range keys {
		rs := byKey[k]
		if rs[0].src == nil {
			continue
		}
		f := Build(rs[0].src)
		for _, r := range rs {
			r.Filter, r.src = f, nil
		}
		built[k.SHA256] = f
		put = append(put, store.Extract{ExtractKey: k, Data: f})
		nbuilt++
	}
	if sh != nil && len(put) > 0 {
		if err := sh.PutExtracts(ctx, put); err != nil {
			return 0, 0, err
		}
	}
	return fetched, nbuilt, nil
}

func decodes(b []byte) bool {
	_, err := Decode(b)
	return err == nil
}

// String says what Update did, in one line.
func (s Stats) String() string {
	out := fmt.Sprintf("token index: %d files (%d read, %d filters built, %d from the shared store, %d forgotten), %s bytes",
		s.Files, s.Read, s.Built, s.Fetched, s.Removed, textfmt.Thousands(int(s.Bytes)))
	if s.Syntax > 0 {
		out += fmt.Sprintf("; the syntax of %d files recorded (%d parsed for it", s.Syntax, s.Parsed)
		if s.SyntaxShared > 0 {
			out += fmt.Sprintf(", %d from the shared store", s.SyntaxShared)
		}
		out += ")"
	}
	return out
}
