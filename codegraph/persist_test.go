package codegraph

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cchub/store"
	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// persisted opens dir as a workspace with its store and a fresh index of it.
func persisted(t *testing.T, dir string) *Index {
	t.Helper()
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	db, err := store.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cache := syntax.NewParseCache(0)
	t.Cleanup(cache.Close)
	x := NewIndex(root, cache)
	x.Persist(db, nil)
	return x
}

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the files written are trusted unchanged by their
// Identity when not read (workspace.RacyWindow).
func settle() { wstest.Settle(workspace.RacyWindow) }

func update(t *testing.T, x *Index) Stats {
	t.Helper()
	st, err := x.Update(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A second process reads nothing that did not change; one changed file is
// read alone; a file touched but not changed is read, not parsed; a
// removed file is forgotten; and the graph a new process loads from the
// store answers as the one that read the files.
func TestIndexPersistsAndRereadsOnlyChanges(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/m\n")
	write(t, dir, "a/a.go", "package a\n\nfunc A() { B() }\n\nfunc B() {}\n")
	write(t, dir, "b/b.go", "package b\n\nimport \"example.com/m/a\"\n\nfunc C() { a.A() }\n")
	write(t, dir, "p/m.py", "def f():\n    g()\n\ndef g():\n    pass\n")
	settle()

	x1 := persisted(t, dir)
	if st := update(t, x1); st.Files != 4 || st.Read != 4 || st.Parsed != 4 {
		t.Fatalf("first index: %+v", st)
	}
	_, want, err := x1.Callers("A")
	if err != nil {
		t.Fatal(err)
	}

	x2 := persisted(t, dir)
	st := update(t, x2)
	if st.Files != 4 || st.Read != 0 || st.Parsed != 0 || st.Defs != 5 || st.Calls != 3 {
		t.Fatalf("second process, nothing changed: %+v, want 4 files (go.mod too), none read, 5 defs, 3 calls", st)
	}
	_, got, err := x2.Callers("A")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(edges(got), edges(want)) || len(got) != 1 {
		t.Fatalf("callers of A from the store: %v, want %v", edges(got), edges(want))
	}

	write(t, dir, "a/a.go", "package a\n\nfunc A() { B(); B() }\n\nfunc B() {}\n")
	os.Chtimes(filepath.Join(dir, "p/m.py"), time.Now().Add(-30*time.Second), time.Now().Add(-30*time.Second))
	settle() // else they are read again next time, as changed within the racy window
	x3 := persisted(t, dir)
	if st := update(t, x3); st.Read != 2 || st.Parsed != 1 {
		t.Fatalf("one file changed, one touched: %+v, want 2 read, 1 parsed", st)
	}
	if _, es, _ := x3.Callees("A"); len(es) != 2 {
		t.Fatalf("callees of the changed A: %v", edges(es))
	}
	os.Remove(filepath.Join(dir, "b/b.go"))
	if st := update(t, x3); st.Removed != 1 || st.Files != 3 {
		t.Fatalf("after removing b.go: %+v", st)
	}
	x4 := persisted(t, dir)
	if st := update(t, x4); st.Read != 0 || st.Files != 3 {
		t.Fatalf("the removal was saved: %+v", st)
	}
	if _, es, _ := x4.Callers("A"); len(es) != 0 {
		t.Fatalf("callers of A after its caller's file went: %v", edges(es))
	}
}

// A file modified within racyWindow of its indexing may change again in
// the same clock tick: its mtime is not trusted, so an edit that keeps
// size and mtime is still seen.
func TestRacyEditIsSeen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	os.WriteFile(p, []byte("package a\n\nfunc A() {}\n"), 0o644)
	fi, _ := os.Stat(p)
	x := persisted(t, dir)
	update(t, x)
	os.WriteFile(p, []byte("package a\n\nfunc Z() {}\n"), 0o644)
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	update(t, x)
	if ds, _ := x.Symbols("Z"); len(ds) != 1 {
		t.Fatalf("the racy edit was missed: Z = %v", ds)
	}
}

// A store written by another encoding is read again, not trusted; a
// corrupt row of the shared store is ignored, said, and the file read
// again from disk: the answer is the same.
func TestOtherFormatIsReadAgainAndCorruptRowIsIgnored(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() { B() }\n\nfunc B() {}\n")
	settle()
	x := persisted(t, dir)
	update(t, x)
	root, _ := workspace.Open(dir)
	defer root.Close()
	db, err := store.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, _ := db.GraphStamps(ctx)
	s := st["a.go"]
	s.Format = Format + 1
	db.SaveGraph(ctx, []store.GraphFile{{Path: "a.go", GraphStamp: s}}, nil)
	if got := update(t, persisted(t, dir)); got.Read != 1 || got.Parsed+got.Shared != 1 {
		t.Fatalf("another format: %+v, want it read again", got)
	}
	// Another checkout's data under a.go's key: its seal does not match.
	if _, err := db.DB().ExecContext(ctx, `UPDATE shared_extracts SET data = ?`, store.Seal(store.SealExtract, []byte("another key"), []byte{1, 2, 3})); err != nil {
		t.Fatal(err)
	}
	y := persisted(t, dir)
	if got := update(t, y); got.Read != 0 {
		t.Fatalf("unchanged: %+v, want nothing read", got)
	}
	_, es, err := y.Callers("B")
	if err != nil || len(es) != 1 || es[0].Caller == nil || es[0].Caller.Name != "A" {
		t.Fatalf("callers of B over a corrupt row = %+v, %v; want A, read again from disk", es, err)
	}
	notes := strings.Join(y.Notices(), "\n")
	if !strings.Contains(notes, "checksum") {
		t.Fatalf("notices = %q, want the corrupt row said", notes)
	}
	if again := y.Notices(); len(again) != 0 {
		t.Fatalf("notices said twice: %q", again)
	}
	// The corrupt row was replaced by the extraction read again: the
	// next process reads it without a word.
	z := persisted(t, dir)
	update(t, z)
	if _, es, err := z.Callers("B"); err != nil || len(es) != 1 {
		t.Fatalf("callers of B after repair = %+v, %v", es, err)
	}
	if n := z.Notices(); len(n) != 0 {
		t.Fatalf("notices after repair: %q", n)
	}
}

// encode and decode are inverses on real extracted files.
func TestCodecRoundTrip(t *testing.T) {
	x := index(t, map[string]string{
		"a/a.go": "package a\n\nimport (\n\tb \"example.com/m/b\"\n)\n\ntype T struct{ b.E; u *U }\n\nfunc (t *T) M() *T { x := b.F(); t.M(); b.G(t.M, X); return x }\n\nfunc init() {}\nfunc init() { go func() { X() }() }\n",
		"p/m.py": "from .q import r as s\nimport os\n\nclass C:\n    def test_m(self):\n        self.n(); s()\n",
	})
	for rel, f := range x.files {
		g, err := decode(rel, encode(f), map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		g.hash, g.parsed, g.broken = f.hash, f.parsed, f.broken // this process's, not stored
		if !reflect.DeepEqual(f, g) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", rel, g, f)
		}
	}
	// Every field is encoded (Def's key and dir are made by resolve; a
	// File's hash, parsed and broken are what this process read): a
	// field added to these types must be added to the codec too (and
	// extractVersion bumped).
	for typ, n := range map[reflect.Type]int{reflect.TypeOf(Def{}): 11, reflect.TypeOf(Call{}): 6, reflect.TypeOf(Import{}): 2, reflect.TypeOf(File{}): 9, reflect.TypeOf(Bind{}): 5} {
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, the codec knows %d: update encode/decode", typ, typ.NumField(), n)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(&File{Language: "go", Defs: []Def{{Name: "A", Kind: "func", Start: 1, End: 3}}, Calls: []Call{{Name: "B", Line: 2, Col: 3, In: 0}}, Imports: []Import{{"x", "y"}}}))
	f.Add([]byte{})
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := decode("f.go", b, nil)
		if err != nil {
			return
		}
		for _, c := range g.Calls {
			if c.In < -1 || c.In >= len(g.Defs) {
				t.Fatalf("call in def %d of %d", c.In, len(g.Defs))
			}
		}
		if h, err := decode("f.go", encode(g), nil); err != nil || !reflect.DeepEqual(g, h) {
			t.Fatalf("re-encoding what decoded: %v", err)
		}
	})
}

// A file the graph cannot read as text (binary, say) is remembered as
// empty: it is not read again until it changes.
func TestUnreadableFileIsNotReadAgain(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() {}\n")
	write(t, dir, "bin.go", "package a\x00\x01\x02 binary")
	write(t, dir, "bom.py", "\ufeffdef f():\n    pass\n")
	settle()
	x := persisted(t, dir)
	if st := update(t, x); st.Files != 3 || st.Defs != 2 {
		t.Fatalf("first: %+v, want 3 files (bin.go empty), 2 definitions", st)
	}
	if st := update(t, persisted(t, dir)); st.Read != 0 {
		t.Fatalf("second: %+v, want nothing read (the binary file and the one with a BOM included)", st)
	}
}

// A TypeScript configuration is kept in the store as the code is: a new
// process resolves a path alias from it without reading it, and a
// changed alias, read again, moves the edges to where it now leads.
func TestTSConfigPersists(t *testing.T) {
	t.Parallel() // each waits for its files to settle
	dir := t.TempDir()
	write(t, dir, "tsconfig.json", `{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}`)
	write(t, dir, "src/geo.ts", "export function area() {}\n")
	write(t, dir, "lib/geo.ts", "export function area() {}\n")
	write(t, dir, "app.ts", "import { area } from '@/geo'\nexport function run() { area() }\n")
	settle()

	x1 := persisted(t, dir)
	if st := update(t, x1); st.Files != 4 || st.Parsed != 4 {
		t.Fatalf("first index: %+v, want 4 files (the tsconfig too) read", st)
	}
	want := []string{"app.ts:run -> src/geo.ts:area (import)"}
	same(t, "callees of run", calleesOf(t, x1, "run"), want)

	x2 := persisted(t, dir)
	if st := update(t, x2); st.Read != 0 || st.Parsed != 0 {
		t.Fatalf("second process, nothing changed: %+v, want nothing read", st)
	}
	same(t, "callees of run from the store", calleesOf(t, x2, "run"), want)

	// A new definition: everything is resolved again, the tsconfig as
	// the store keeps it.
	write(t, dir, "app.ts", "import { area } from '@/geo'\nexport function run() { area() }\nexport function more() {}\n")
	x3 := persisted(t, dir)
	if st := update(t, x3); st.Read != 1 || st.Parsed != 1 {
		t.Fatalf("app.ts changed: %+v, want it alone read", st)
	}
	same(t, "callees of run resolved with the stored tsconfig", calleesOf(t, x3, "run"), want)

	write(t, dir, "tsconfig.json", `{"compilerOptions": {"paths": {"@/*": ["lib/*"]}}}`)
	if st := update(t, x2); st.Parsed != 1 {
		t.Fatalf("the tsconfig changed: %+v, want it read again (app.ts, as x3 left it, from the store)", st)
	}
	same(t, "callees of run after the alias moved", calleesOf(t, x2, "run"), []string{"app.ts:run -> lib/geo.ts:area (import)"})
}

// What the store keeps is packed: short bytes raw, long ones deflated;
// either reads back as it was, and bytes no pack wrote are corrupt, never
// a panic or a file.
func TestPackRoundTripAndCorruption(t *testing.T) {
	long := bytes.Repeat([]byte("package a; func A() {}\n"), 200)
	for _, raw := range [][]byte{nil, []byte("x"), long[:packAtLeast-1], long[:packAtLeast], long} {
		p := pack(raw)
		if len(raw) >= packAtLeast && (p[0] != packDeflate || len(p) >= len(raw)) {
			t.Errorf("%d bytes: packed to %d bytes with marker %d, want deflated and shorter", len(raw), len(p), p[0])
		}
		got, err := unpack(p)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("%d bytes: unpacked %d bytes, %v", len(raw), len(got), err)
		}
	}
	p := pack(long)
	for name, b := range map[string][]byte{
		"empty":          nil,
		"unknown marker": append([]byte{7}, p[1:]...),
		"cut short":      p[:len(p)/2],
		"not deflate":    {packDeflate, 0xff, 0xff, 0xff},
	} {
		if _, err := unpack(b); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: unpack says %v, want errCorrupt", name, err)
		}
		if _, err := fromStore("f.go", b, nil); err == nil {
			t.Errorf("%s: fromStore read a file", name)
		}
	}
}

func FuzzFromStore(f *testing.F) {
	f.Add(stored(&File{Language: "go", Defs: []Def{{Name: "A", Kind: "func", Start: 1, End: 3}}}))
	f.Add(pack(bytes.Repeat([]byte{1, 2, 3}, 200)))
	f.Add([]byte{packDeflate})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := fromStore("f.go", b, nil)
		if err != nil {
			return
		}
		if h, err := fromStore("f.go", stored(g), nil); err != nil || !reflect.DeepEqual(g, h) {
			t.Fatalf("re-storing what was read: %v", err)
		}
	})
}
