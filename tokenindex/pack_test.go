package tokenindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"cchub/store"
	"cchub/workspace"
)

func packPath(t *testing.T, root *workspace.Root) string {
	t.Helper()
	dir, err := root.StatePath()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, PackName)
}

func removePack(t *testing.T, root *workspace.Root) {
	t.Helper()
	if err := os.Remove(packPath(t, root)); err != nil {
		t.Fatal(err)
	}
}

// storeAnswers is what the store alone (no pack) says lacks lits.
func storeAnswers(t *testing.T, root *workspace.Root, db *store.Store, lits ...string) map[string]bool {
	t.Helper()
	l, err := Lacks(context.Background(), nil, db, bytesOf(lits))
	if err != nil {
		t.Fatal(err)
	}
	return answers(t, root, l)
}

var packFiles = map[string]string{
	"a.go":    "package a // alpha\n",
	"b.txt":   "beta gamma\n",
	"c/d.txt": "ALPHA beta\n",
	"e.md":    "# epsilon\n",
}

// Update writes the pack, and the pack answers as the store does: per
// question, and loaded into memory. It is what is read: emptied behind
// the pack's back (the generation kept), the store would say otherwise.
func TestThePackAnswersAsTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, packFiles)
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(packPath(t, root)); err != nil {
		t.Fatalf("Update wrote no pack: %v", err)
	}
	questions := [][]string{{"alpha"}, {"beta"}, {"gamma", "beta"}, {"zeta"}, {"epsilon"}}
	want := map[string]map[string]bool{}
	for _, q := range questions {
		want[q[0]+q[len(q)-1]] = storeAnswers(t, root, db, q...)
	}
	if _, err := db.DB().ExecContext(ctx, `DELETE FROM token_files`); err != nil {
		t.Fatal(err)
	}
	x, err := Load(ctx, root, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range questions {
		w := want[q[0]+q[len(q)-1]]
		if got := lacking(t, root, db, q...); !reflect.DeepEqual(got, w) {
			t.Errorf("%q from the pack: %v, the store said %v", q, got, w)
		}
		if got := answers(t, root, x.Lacks(bytesOf(q))); !reflect.DeepEqual(got, w) {
			t.Errorf("%q from the pack loaded: %v, the store said %v", q, got, w)
		}
	}
	if got := lacking(t, root, db, "zeta"); len(got) != len(packFiles) {
		t.Errorf("zeta: %v lack it, want every file", got)
	}
	if got := storeAnswers(t, root, db, "zeta"); len(got) != 0 {
		t.Errorf("the emptied store still answers: %v", got)
	}
}

// A pack that is damaged anywhere (a byte changed, cut short, grown) or
// of another generation than the store's is not believed: the store is
// read, and the answer is the store's.
func TestADamagedOrStalePackIsNotBelieved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, packFiles)
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(packPath(t, root))
	if err != nil {
		t.Fatal(err)
	}
	// The pack says every file lacks "beta": its filters of b.txt and
	// c/d.txt are swapped for a.go's, with the checksum made again, so
	// that only what the store says tells a believed pack from not.
	lying := rewritePack(t, good, func(path string, flt []byte, a []byte) []byte {
		if path == "b.txt" || path == "c/d.txt" {
			return a
		}
		return flt
	})
	want := storeAnswers(t, root, db, "beta")
	if len(want) != 2 {
		t.Fatalf("the store says %v lack beta", want)
	}
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(packPath(t, root), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(lying)
	if got := lacking(t, root, db, "beta"); len(got) != len(packFiles) {
		t.Fatalf("the lying pack was not read: %v lack beta", got)
	}
	flipped := append([]byte(nil), lying...)
	flipped[len(flipped)/2] ^= 0x40
	stale := append([]byte(nil), lying...)
	stale[len(packMagic)]++ // another generation
	for name, b := range map[string][]byte{
		"a byte changed": flipped,
		"cut short":      lying[:len(lying)-3],
		"cut at a half":  lying[:len(lying)/2],
		"grown":          append(append([]byte(nil), lying...), 0),
		"no header":      []byte("cchub"),
		"empty":          nil,
		"stale":          stale,
	} {
		write(b)
		if got := lacking(t, root, db, "beta"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v lack beta, the store says %v", name, got, want)
		}
		x, err := Load(ctx, root, db)
		if err != nil {
			t.Fatal(err)
		}
		if got := answers(t, root, x.Lacks(bytesOf([]string{"beta"}))); !reflect.DeepEqual(got, want) {
			t.Errorf("%s, loaded: %v lack beta, the store says %v", name, got, want)
		}
	}
	// A stale pack is written again by the next Update, even one that
	// changes nothing.
	write(stale)
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(packPath(t, root)); !bytes.Equal(b, good) {
		t.Error("Update left a stale pack as it was")
	}
}

// rewritePack rebuilds a pack with each filter replaced by what swap
// returns (given the path, its filter, and the first entry's filter).
func rewritePack(t *testing.T, pack []byte, swap func(path string, flt, first []byte) []byte) []byte {
	t.Helper()
	type entry struct {
		path  string
		id    workspace.Identity
		flt   []byte
		clean bool
	}
	var es []entry
	gen := int64(binary.LittleEndian.Uint64(pack[len(packMagic):]))
	ok, err := readPack(context.Background(), bytes.NewReader(pack), gen, func(path []byte, id workspace.Identity, flt Filter, clean bool) {
		es = append(es, entry{string(path), id, encoded(flt), clean})
	})
	if !ok || err != nil {
		t.Fatalf("reading a good pack: %v, %v", ok, err)
	}
	var b bytes.Buffer
	w := newPackWriter(&b, gen)
	for _, e := range es {
		w.add(e.path, e.id, swap(e.path, e.flt, es[0].flt), e.clean)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// encoded is a decoded filter's bytes again.
func encoded(f Filter) []byte {
	return append([]byte{Format, byte(bits.Len32(f.mask))}, f.set...)
}

// FuzzReadPack: a pack is read from a file of the state directory, which
// another process (or a damaged disk) may have left in any state:
// whatever its bytes, reading it does not panic, refuses it with
// ErrBadPack, or hands out entries whose filters decode, and a pack
// that is cut anywhere, or has any byte changed, is refused.
func FuzzReadPack(f *testing.F) {
	var b bytes.Buffer
	w := newPackWriter(&b, 7)
	w.add("a.go", workspace.Identity{Size: 19, MTime: 1700000000000000000, CTime: 1700000000000000002, Inode: 1<<63 + 1, Dev: 2049}, Build([]byte("package a // alpha\n")), false)
	w.add("dir/b.py", workspace.Identity{Size: 11, MTime: 1700000000000000001, CTime: 1700000000000000003, Inode: 7, Dev: 2049}, Build([]byte("beta(gamma)\n")), true)
	w.close()
	good := append([]byte(nil), b.Bytes()...)
	f.Add(good, uint(len(good)/2), byte(1))
	f.Add(good[:20], uint(3), byte(0))
	f.Add([]byte(packMagic+"\x07\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\x0f"), uint(0), byte(0))
	f.Fuzz(func(t *testing.T, pack []byte, at uint, flip byte) {
		read := func(p []byte) (bool, error) {
			return readPack(context.Background(), bytes.NewReader(p), 7, func(path []byte, id workspace.Identity, flt Filter, clean bool) {
				if len(path) == 0 || len(path) > maxPackPath {
					t.Fatalf("an entry of path %q was handed out", path)
				}
				flt.MayContain([]byte("alpha"))
			})
		}
		if ok, err := read(pack); ok && err != nil && !errors.Is(err, ErrBadPack) {
			t.Fatalf("an error %v that is not ErrBadPack", err)
		}
		// The good pack, damaged at a place the fuzzer picks.
		i := int(at % uint(len(good)))
		if ok, err := read(good[:i]); ok && err == nil {
			t.Fatalf("a pack cut at %d was believed", i)
		}
		if flip != 0 {
			bad := append([]byte(nil), good...)
			bad[i] ^= flip
			if ok, err := read(bad); ok && err == nil {
				t.Fatalf("a pack with byte %d changed was believed", i)
			}
		}
	})
}
