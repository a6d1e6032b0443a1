package codegraph

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"cchub/store"
)

// A snapshot is a resolved graph kept in the shared store, so that a new
// process answers its first question without loading and resolving every
// file (2.5 s and more on GOROOT): a query reads the rows of the names it
// meets, and nothing else. It is keyed by its generation: the SHA-256 of
// the cchub that resolved it and of every path, content and variant of
// the tree, so it is shared by every checkout of the same files, and no
// checkout ever reads one of other files.
//
// One row per name holds the definitions so named, with, for each, the
// calls that reach it (each naming its caller's name, the row to read
// next), and the calls of the name too widely named to link. The calls a
// definition makes are its file's (read from the shared store by the
// file's key), linked through the rows of the names called. The index
// lists the names, with the types of their methods, for glob questions.

// snapshotFormat is bumped whenever a row's encoding changes.
const snapshotFormat = 2

// resolverID names the code that resolves: the Go build ID of the
// running executable (a hash of everything it was built from), else the
// SHA-256 of its bytes. A snapshot resolved by another build is not used.
var resolverID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		if s := f.Section(".note.go.buildid"); s != nil {
			if b, err := s.Data(); err == nil && len(b) > 16 {
				return string(b)
			}
		}
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	io.Copy(h, f)
	return string(h.Sum(nil))
})

// genOf is the generation of the files stamps describes. Call with x.mu
// held.
func (x *Index) genOf() store.Gen {
	paths := make([]string, 0, len(x.stamps))
	for p := range x.stamps {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	fmt.Fprintf(h, "cchub snapshot %d format %d resolver %q\n", snapshotFormat, Format, resolverID())
	for _, p := range paths {
		s := x.stamps[p]
		fmt.Fprintf(h, "%q %x %q\n", p, s.SHA256, s.Variant)
	}
	var g store.Gen
	h.Sum(g[:0])
	return g
}

// lazy is what a built read from a snapshot needs to read more of it.
type lazy struct {
	shared  store.Shared
	gen     store.Gen
	index   *snapshotIndex              // its names, read for a glob question only
	loaded  map[string]bool             // names whose row is read (or that have none)
	in      map[string]inBlock          // definition key → its incoming calls, not read yet
	crowd   map[string]inBlock          // name → its unlinked calls, not read yet
	err     *errLazy                    // a block that did not decode
	keyName map[string]string           // definition key → its name, for the keys rows named
	files   map[string]store.ExtractKey // path → its extraction's key
	// mu makes the queries on a lazy built one at a time: they fill its
	// maps as they go.
	mu sync.Mutex
}

// errLazy is a snapshot that could not be read: the query is answered
// again from the files, resolved.
type errLazy struct{ why string }

func (e *errLazy) Error() string { return e.why }

// fromSnapshot returns the built of snapshot gen, with nothing of it
// read yet, or nil when the shared store has none complete.
func fromSnapshot(ctx context.Context, sh store.Shared, gen store.Gen, stamps map[string]store.GraphStamp) (*built, error) {
	ok, err := sh.HaveSnapshot(ctx, gen)
	if err != nil || !ok {
		return nil, err
	}
	files := make(map[string]store.ExtractKey, len(stamps))
	for p, s := range stamps {
		files[p] = s.Key()
	}
	return &built{defs: map[string]*Def{}, byName: map[string][]*Def{}, calls: map[string][]site{}, callIn: map[string][]incoming{}, crowded: map[string]int{}, crowdIn: map[string][]incoming{},
		lazy: &lazy{shared: sh, gen: gen, loaded: map[string]bool{}, keyName: map[string]string{}, files: files, in: map[string]inBlock{}, crowd: map[string]inBlock{}}, gen: gen}, nil
}

// need reads the rows of names not read yet. A built resolved in memory
// has them all. A name with no row has no definition, once the snapshot
// is found still complete (a row found corrupt is removed with the mark
// of completeness, in one step).
func (b *built) need(ctx context.Context, names ...string) error {
	l := b.lazy
	if l == nil {
		return nil
	}
	var want []string
	for _, n := range names {
		if !l.loaded[n] {
			l.loaded[n] = true
			want = append(want, n)
		}
	}
	if len(want) == 0 {
		return nil
	}
	slices.Sort(want)
	want = slices.Compact(want)
	rows, corrupt, err := l.shared.SnapshotRows(ctx, l.gen, want)
	if err != nil {
		return &errLazy{fmt.Sprintf("shared store: reading the graph's snapshot from %s failed (%v); the graph is resolved from the files", l.shared.Where(), err)}
	}
	if len(corrupt) > 0 {
		return &errLazy{corrupt[0]}
	}
	if len(rows) < len(want) {
		if ok, err := l.shared.HaveSnapshot(ctx, l.gen); err != nil || !ok {
			return &errLazy{fmt.Sprintf("shared store: the graph's snapshot in %s changed while it was read (%v); the graph is resolved from the files", l.shared.Where(), err)}
		}
	}
	for n, row := range rows {
		raw, err := unpack(row)
		if err == nil {
			err = b.decodeRow(n, raw)
		}
		if err != nil {
			return &errLazy{fmt.Sprintf("shared store: the snapshot row of %q in %s does not decode (%v); the graph is resolved from the files", n, l.shared.Where(), err)}
		}
	}
	return nil
}

// needCallers reads the rows of the callers of ins.
func (b *built) needCallers(ctx context.Context, ins []incoming) error {
	if b.lazy == nil {
		return nil
	}
	var names []string
	for _, in := range ins {
		if n := b.lazy.keyName[in.caller]; n != "" {
			names = append(names, n)
		}
	}
	return b.need(ctx, names...)
}

// symbolNames are the names whose definitions can match a glob: by
// name, or as Type.Name.
func (l *lazy) symbolNames(ctx context.Context, pattern string) ([]string, error) {
	if l.index == nil {
		idx, ok, corrupt, err := l.shared.SnapshotIndex(ctx, l.gen)
		if err != nil || !ok {
			why := fmt.Sprintf("shared store: the graph's snapshot index could not be read from %s (%v %v)", l.shared.Where(), err, corrupt)
			return nil, &errLazy{why + "; the graph is resolved from the files"}
		}
		if idx, err = unpack(idx); err == nil {
			l.index, err = decodeIndex(idx)
		}
		if err != nil {
			l.index = nil
			return nil, &errLazy{fmt.Sprintf("shared store: the snapshot index of this tree in %s does not decode (%v); the graph is resolved from the files", l.shared.Where(), err)}
		}
	}
	var out []string
	for i, n := range l.index.names {
		if ok, _ := path.Match(pattern, n); ok || n == pattern {
			out = append(out, n)
			continue
		}
		for _, t := range l.index.types[l.index.at[i]:l.index.at[i+1]] {
			if t == "" {
				continue
			}
			if ok, _ := path.Match(pattern, t+"."+n); ok || t+"."+n == pattern {
				out = append(out, n)
				break
			}
		}
	}
	return out, nil
}

// snapshotWriter writes a blob with its own table of strings.
type snapshotWriter struct {
	idx  map[string]uint64
	strs []string
	body []byte
}

func (w *snapshotWriter) u(v uint64) { w.body = binary.AppendUvarint(w.body, v) }

func (w *snapshotWriter) str(s string) {
	i, ok := w.idx[s]
	if !ok {
		if w.idx == nil {
			w.idx = map[string]uint64{}
		}
		i = uint64(len(w.strs))
		w.idx[s] = i
		w.strs = append(w.strs, s)
	}
	w.u(i)
}

func (w *snapshotWriter) bytes() []byte {
	out := binary.AppendUvarint(nil, uint64(len(w.strs)))
	for _, s := range w.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, w.body...)
}

// snapshotReader reads what a snapshotWriter wrote. Its strings are
// made on first use: a row holds every caller's name and place, and a
// query reads few of them.
type snapshotReader struct {
	decoder
	t *strTable
	// keyName is where the names of the keys read go (definition key →
	// name), for the rows to read next.
	keyName map[string]string
}

// strTable is a blob's table of strings, each made on first use.
type strTable struct {
	raw  []byte
	off  []uint32 // where string i's bytes start in raw
	lens []uint32
	strs []string
	made []bool
}

func newSnapshotReader(b []byte) *snapshotReader {
	r := &snapshotReader{decoder: decoder{b: b}, t: &strTable{raw: b}}
	n := r.count(1)
	t := r.t
	t.off, t.lens = make([]uint32, 0, n), make([]uint32, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		l := r.count(1)
		if r.err != nil {
			break
		}
		t.off = append(t.off, uint32(len(b)-len(r.b)))
		t.lens = append(t.lens, uint32(l))
		r.b = r.b[l:]
	}
	t.strs, t.made = make([]string, len(t.off)), make([]bool, len(t.off))
	return r
}

// at is a reader of b (a part of the same blob) over the same table.
func (r *snapshotReader) at(b []byte) *snapshotReader {
	return &snapshotReader{decoder: decoder{b: b}, t: r.t, keyName: r.keyName}
}

func (r *snapshotReader) str() string {
	i := r.uvarint()
	t := r.t
	if i >= uint64(len(t.strs)) {
		r.fail()
		return ""
	}
	if !t.made[i] {
		t.strs[i] = string(t.raw[t.off[i] : t.off[i]+t.lens[i]])
		t.made[i] = true
	}
	return t.strs[i]
}

// bytes reads a length and that many bytes.
func (r *snapshotReader) bytes() []byte {
	n := r.count(1)
	if r.err != nil {
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// key reads a definition key written by keyIn: path:rest, or "" when
// the path is "".
func (r *snapshotReader) key(path string) string {
	rest := r.str()
	if path == "" {
		return rest
	}
	return path + ":" + rest
}

// keyIn is key without its path (keys are path:Type.Name), to be written
// beside a path a row holds anyway; key itself when it is not in path.
func keyIn(key, path string) string {
	if rest, ok := strings.CutPrefix(key, path+":"); ok && path != "" {
		return rest
	}
	return key
}

// evidence codes, in a row.
var evidenceCode = map[string]uint64{Confirmed: 0, Exact: 1, Imported: 2, NameOnly: 3, Possible: 4, Refuted: 5}

func (r *snapshotReader) evidence() string {
	c := r.uvarint()
	if c >= uint64(len(evidenceNames)) {
		r.fail()
		return ""
	}
	return evidenceNames[c]
}

var evidenceNames = []string{Confirmed, Exact, Imported, NameOnly, Possible, Refuted}

// nameOf is the name of the definition key names, "" for a top level.
func (b *built) nameOf(key string) string {
	if d := b.defs[key]; d != nil {
		return d.Name
	}
	return ""
}

// encodeIndex is b's index: every name, with its methods' types.
func (b *built) encodeIndex() []byte {
	names := make([]string, 0, len(b.byName))
	for n := range b.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	w := &snapshotWriter{}
	w.u(uint64(len(names)))
	for _, n := range names {
		w.str(n)
		var types []string
		for _, d := range b.byName[n] {
			types = append(types, d.Type)
		}
		slices.Sort(types)
		types = slices.Compact(types)
		w.u(uint64(len(types)))
		for _, t := range types {
			w.str(t)
		}
	}
	return w.bytes()
}

// snapshotIndex is a snapshot's names, sorted, with their methods' types.
type snapshotIndex struct {
	names []string
	// types[at[i]:at[i+1]] are the types of names[i]'s methods ("" for
	// its other definitions).
	types []string
	at    []int32
}

func decodeIndex(data []byte) (*snapshotIndex, error) {
	r := newSnapshotReader(data)
	n := r.count(1)
	ix := &snapshotIndex{names: make([]string, 0, n), at: make([]int32, 0, n+1)}
	for i := 0; i < n && r.err == nil; i++ {
		ix.names = append(ix.names, r.str())
		ix.at = append(ix.at, int32(len(ix.types)))
		k := r.count(1)
		for j := 0; j < k && r.err == nil; j++ {
			ix.types = append(ix.types, r.str())
		}
	}
	ix.at = append(ix.at, int32(len(ix.types)))
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err == nil && !slices.IsSorted(ix.names) {
		r.fail()
	}
	return ix, r.err
}

// encodeRow is the row of name: its definitions, each with the calls
// that reach it and those it makes, and the calls of the name left
// unlinked.
func (b *built) encodeRow(name string) []byte {
	w := &snapshotWriter{}
	ds := b.byName[name]
	w.u(uint64(len(ds)))
	for _, d := range ds {
		w.str(d.Path)
		w.str(keyIn(d.key, d.Path))
		w.str(d.Type)
		w.str(d.Kind)
		w.str(d.Language)
		w.u(uint64(d.Start))
		w.u(uint64(d.End - d.Start))
		var flags uint64
		if d.Test {
			flags |= 1
		}
		w.u(flags)
		b.writeBlock(w, b.callIn[d.key])
	}
	b.writeBlock(w, b.crowdIn[name])
	w.u(uint64(b.crowded[name]))
	return w.bytes()
}

// writeBlock writes calls as a block a reader can skip: how many, how
// many bytes, the calls.
func (b *built) writeBlock(w *snapshotWriter, ins []incoming) {
	w.u(uint64(len(ins)))
	body := w.body
	w.body = nil
	for _, in := range ins {
		b.writeIncoming(w, in)
	}
	block := w.body
	w.body = binary.AppendUvarint(body, uint64(len(block)))
	w.body = append(w.body, block...)
}

func (b *built) writeIncoming(w *snapshotWriter, in incoming) {
	w.str(in.path)
	w.str(keyIn(in.caller, in.path)) // a caller is in the file of its call
	w.str(b.nameOf(in.caller))
	w.u(uint64(in.line))
	w.u(uint64(in.col))
	w.u(evidenceCode[in.confidence])
	var flags uint64
	if in.ref {
		flags |= 1
	}
	if in.qualified {
		flags |= 2
	}
	w.u(flags)
}

func (r *snapshotReader) incoming() incoming {
	var in incoming
	in.path = r.str()
	in.caller = r.key(in.path)
	if name := r.str(); name != "" {
		r.keyName[in.caller] = name
	}
	in.line, in.col, in.confidence = r.int(), r.int(), r.evidence()
	flags := r.uvarint()
	in.ref, in.qualified = flags&1 != 0, flags&2 != 0
	return in
}

// inBlock is a block of calls not read yet.
type inBlock struct {
	r *snapshotReader
	n int
}

func (r *snapshotReader) block() inBlock {
	n := r.count(1)
	return inBlock{r: r.at(r.bytes()), n: n}
}

// read is the calls of the block (ok false: it is corrupt).
func (blk inBlock) read() ([]incoming, bool) {
	ins := make([]incoming, 0, blk.n)
	for j := 0; j < blk.n && blk.r.err == nil; j++ {
		ins = append(ins, blk.r.incoming())
	}
	return ins, blk.r.err == nil && len(blk.r.b) == 0
}

// decodeRow adds the row of name to b: its definitions now, the calls of
// each when asked for (incomingOf).
func (b *built) decodeRow(name string, data []byte) error {
	r := newSnapshotReader(data)
	r.keyName = b.lazy.keyName
	n := r.count(8)
	var ds []*Def
	blocks := map[string]inBlock{}
	for i := 0; i < n && r.err == nil; i++ {
		d := &Def{Name: name, Path: r.str()}
		d.key = r.key(d.Path)
		d.Type, d.Kind, d.Language = r.str(), r.str(), r.str()
		d.Start = r.int()
		d.End = d.Start + r.int()
		d.Test = r.uvarint()&1 != 0
		d.dir = path.Dir(d.Path)
		blocks[d.key] = r.block()
		ds = append(ds, d)
	}
	crowd := r.block()
	crowded := r.int()
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return r.err
	}
	for _, d := range ds {
		b.defs[d.key] = d
		if blk := blocks[d.key]; blk.n > 0 {
			b.lazy.in[d.key] = blk
		}
	}
	b.byName[name] = ds
	if crowd.n > 0 {
		b.lazy.crowd[name] = crowd
	}
	if crowded > 0 {
		b.crowded[name] = crowded
	}
	return nil
}

// incomingOf is the calls linked to the definition k.
func (b *built) incomingOf(k string) []incoming {
	if b.lazy != nil {
		b.lazy.read(b.lazy.in, b.callIn, k)
	}
	return b.callIn[k]
}

// crowdOf is the calls of name left unlinked as too widely named.
func (b *built) crowdOf(name string) []incoming {
	if b.lazy != nil {
		b.lazy.read(b.lazy.crowd, b.crowdIn, name)
	}
	return b.crowdIn[name]
}

// read decodes the block of calls blocks holds under key, if not read
// yet, into calls.
func (l *lazy) read(blocks map[string]inBlock, calls map[string][]incoming, key string) {
	blk, ok := blocks[key]
	if !ok {
		return
	}
	delete(blocks, key)
	ins, ok := blk.read()
	if !ok {
		l.fail(key)
	}
	calls[key] = ins
}

// fail records a block that does not decode: the query is answered from
// the files instead.
func (l *lazy) fail(what string) {
	if l.err == nil {
		l.err = &errLazy{fmt.Sprintf("shared store: the snapshot's calls of %q in %s do not decode; the graph is resolved from the files", what, l.shared.Where())}
	}
}

// ShareSnapshots has an index not of a workspace (NewMemIndex) read its
// resolved graph from sh when sh holds the snapshot of its files, and
// keep one there with SaveSnapshot: a blast of the same head on another
// runner resolves nothing.
func (x *Index) ShareSnapshots(sh store.Shared) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.shared, x.direct = sh, sh != nil
}

// Derived marks f as made from extracted files (definitions merged or
// added), not extracted from a content: it is keyed by its own encoding,
// so that a snapshot of an index holding it is never taken for one of the
// plain files.
func Derived(f *File) *File {
	f.hash = sha256.Sum256(append([]byte("derived\n"), encode(f)...))
	return f
}

// Resolved says the index holds a graph resolved from its files, whole
// and unpatched: one SaveSnapshot may keep.
func (x *Index) Resolved() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.built != nil && x.built.lazy == nil && x.built.gen != (store.Gen{}) && !x.built.saved.Load() && len(x.changed) == 0
}

// SaveSnapshot keeps the resolved graph of the files the index holds in
// the shared store, unless it is there already: the next process (or
// another checkout of the same files) answers from it at once. It
// resolves the graph first when no query has. It reports whether it
// wrote one.
func (x *Index) SaveSnapshot(ctx context.Context) (bool, error) {
	return x.SaveSnapshotProgress(ctx, nil)
}

// SaveSnapshotProgress is SaveSnapshot that calls progress (if not nil)
// as it encodes the rows, one call at a time.
func (x *Index) SaveSnapshotProgress(ctx context.Context, progress func(done, total int)) (bool, error) {
	if x.shared == nil {
		return false, nil
	}
	b, release, err := x.graph(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	if b.lazy != nil || b.gen == (store.Gen{}) {
		return false, nil // read from one; or patched since resolved
	}
	if b.saved.Load() {
		return false, nil
	}
	if ok, err := x.shared.HaveSnapshot(ctx, b.gen); err != nil || ok {
		b.saved.Store(ok)
		return false, err
	}
	names := make([]string, 0, len(b.byName))
	for n := range b.byName {
		names = append(names, n)
	}
	encoded := make([][]byte, len(names))
	var mu sync.Mutex
	done := 0
	if err := x.parallel(ctx, len(names), func(i int) error {
		encoded[i] = pack(b.encodeRow(names[i]))
		if progress != nil {
			mu.Lock()
			done++
			if done%512 == 0 || done == len(names) {
				progress(done, len(names))
			}
			mu.Unlock()
		}
		return nil
	}); err != nil {
		return false, err
	}
	rows := make(map[string][]byte, len(names))
	for i, n := range names {
		rows[n] = encoded[i]
	}
	if err := x.shared.PutSnapshot(ctx, b.gen, pack(b.encodeIndex()), rows); err != nil {
		return false, err
	}
	b.saved.Store(true)
	return true, nil
}

// lazyCallees is Callees on a snapshot: the calls made in the definition
// k are its file's, and each links to the definitions whose rows list it
// among their incoming calls.
func (b *built) lazyCallees(ctx context.Context, k string) ([]Edge, error) {
	d := b.defs[k]
	key, ok := b.lazy.files[d.Path]
	if !ok {
		return nil, &errLazy{fmt.Sprintf("codegraph: %s is not in the index the snapshot was made of; the graph is resolved from the files", d.Path)}
	}
	var f *File
	corrupt, err := b.lazy.shared.GetExtracts(ctx, []store.ExtractKey{key}, func(_ store.ExtractKey, data []byte) error {
		var err error
		f, err = fromStore(d.Path, data, nil)
		return err
	})
	if err != nil || len(corrupt) > 0 || f == nil {
		return nil, &errLazy{fmt.Sprintf("shared store: the extraction of %s could not be read from %s (%v %v); the graph is resolved from the files", d.Path, b.lazy.shared.Where(), err, corrupt)}
	}
	in := -1
	for i, q := range defKeys(d.Path, f) {
		if q == k {
			in = i
		}
	}
	var calls []Call
	var names []string
	for _, c := range f.Calls {
		if c.In == in && in >= 0 {
			calls = append(calls, c)
			names = append(names, c.Name)
		}
	}
	if err := b.need(ctx, names...); err != nil {
		return nil, err
	}
	var out []Edge
	for _, c := range calls {
		n := len(out)
		for _, callee := range b.byName[c.Name] {
			for _, ci := range b.incomingOf(callee.key) {
				if ci.caller == k && ci.path == d.Path && ci.line == c.Line && ci.col == c.Col {
					out = append(out, Edge{Caller: copyDef(d), Callee: copyDef(callee), Name: c.Name, Path: d.Path, Line: c.Line, Col: c.Col, Confidence: ci.confidence, Ref: c.Ref})
				}
			}
		}
		if len(out) == n && !c.Ref {
			out = append(out, Edge{Caller: copyDef(d), Name: c.Name, Path: d.Path, Line: c.Line, Col: c.Col})
		}
	}
	return out, nil
}
