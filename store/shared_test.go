package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// The one suite of the shared store, run against every engine.

func ekey(i int, variant string, format int) ExtractKey {
	return ExtractKey{SHA256: sha256.Sum256(fmt.Appendf(nil, "file %d", i)), Variant: variant, Format: format}
}

func extract(i int, variant string, format int) Extract {
	k := ekey(i, variant, format)
	return Extract{ExtractKey: k, ExtractInfo: ExtractInfo{Defs: i % 7, Calls: i % 11}, Data: edata(k)}
}

func edata(k ExtractKey) []byte {
	return fmt.Appendf(nil, "data of %x/%s/%d", k.SHA256[:4], k.Variant, k.Format)
}

func extracts(from, to int, variant string) []Extract {
	var es []Extract
	for i := from; i < to; i++ {
		es = append(es, extract(i, variant, 1))
	}
	return es
}

func keysOf(es []Extract) []ExtractKey {
	var ks []ExtractKey
	for _, e := range es {
		ks = append(ks, e.ExtractKey)
	}
	return ks
}

// getAll returns what GetExtracts passes for keys, with a copy of each
// data, failing the test on an error or a key passed twice.
func getAll(t *testing.T, sh Shared, keys []ExtractKey) (map[ExtractKey][]byte, []string) {
	t.Helper()
	got := map[ExtractKey][]byte{}
	corrupt, err := sh.GetExtracts(context.Background(), keys, func(k ExtractKey, data []byte) error {
		if _, dup := got[k]; dup {
			return fmt.Errorf("%x passed twice", k.SHA256[:4])
		}
		got[k] = bytes.Clone(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, corrupt
}

func TestSharedExtractsRoundTrip(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			sh := e.open(t)
			es := extracts(0, 10, "go")
			// Variants and formats are distinct keys.
			es = append(es, extract(0, "go/test", 1), extract(0, "go", 2), extract(0, "python", 1))
			if err := sh.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			missing := ekey(99, "go", 1)
			have, err := sh.HaveExtracts(ctx, append(keysOf(es), missing))
			if err != nil {
				t.Fatal(err)
			}
			if len(have) != len(es) {
				t.Errorf("HaveExtracts found %d of %d (one missing asked)", len(have), len(es))
			}
			for _, x := range es {
				if have[x.ExtractKey] != x.ExtractInfo {
					t.Errorf("%x/%s/%d: info %+v, want %+v", x.SHA256[:4], x.Variant, x.Format, have[x.ExtractKey], x.ExtractInfo)
				}
			}
			got, corrupt := getAll(t, sh, append(keysOf(es), missing))
			if len(corrupt) > 0 {
				t.Errorf("corrupt: %q", corrupt)
			}
			if len(got) != len(es) {
				t.Errorf("GetExtracts passed %d, want %d", len(got), len(es))
			}
			for _, x := range es {
				if !bytes.Equal(got[x.ExtractKey], x.Data) {
					t.Errorf("%x/%s/%d: data %q, want %q", x.SHA256[:4], x.Variant, x.Format, got[x.ExtractKey], x.Data)
				}
			}
			// A re-put of stored keys with other data leaves them as they are.
			again := slices.Clone(es)
			for i := range again {
				again[i].Data = []byte("other")
				again[i].Defs = 1000
			}
			if err := sh.PutExtracts(ctx, again); err != nil {
				t.Fatal(err)
			}
			got, _ = getAll(t, sh, keysOf(es))
			for _, x := range es {
				if !bytes.Equal(got[x.ExtractKey], x.Data) {
					t.Errorf("after a re-put, %x/%s/%d holds %q, want %q", x.SHA256[:4], x.Variant, x.Format, got[x.ExtractKey], x.Data)
				}
			}
			if n := e.count(t, "extracts", ""); n != len(es) {
				t.Errorf("%d rows after a re-put, want %d", n, len(es))
			}
			// fn's error stops the read and is returned.
			stop := fmt.Errorf("enough")
			if _, err := sh.GetExtracts(ctx, keysOf(es), func(ExtractKey, []byte) error { return stop }); err != stop {
				t.Errorf("GetExtracts returned %v, want fn's error", err)
			}
		})
	}
}

// A batch larger than a chunk (rows, and bytes) is stored whole.
func TestSharedBigBatch(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			sh := e.open(t)
			es := extracts(0, 2*chunkRows+17, "go")
			big := make([]byte, chunkBytes/3)
			for i := range 4 {
				x := extract(100000+i, "go", 1)
				x.Data = append(bytes.Clone(big), byte(i))
				es = append(es, x)
			}
			if err := sh.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			got, corrupt := getAll(t, sh, keysOf(es))
			if len(corrupt) > 0 || len(got) != len(es) {
				t.Fatalf("%d of %d back, corrupt %q", len(got), len(es), corrupt)
			}
			for _, x := range es {
				if !bytes.Equal(got[x.ExtractKey], x.Data) {
					t.Fatalf("%x: wrong data back", x.SHA256[:4])
				}
			}
			have, err := sh.HaveExtracts(ctx, keysOf(es))
			if err != nil || len(have) != len(es) {
				t.Fatalf("HaveExtracts: %d of %d, %v", len(have), len(es), err)
			}
		})
	}
}

func snapshotOf(n int, tag string) (Gen, []byte, map[string][]byte) {
	gen := Gen(sha256.Sum256([]byte("tree " + tag)))
	rows := map[string][]byte{}
	for i := range n {
		rows[fmt.Sprintf("name%04d", i)] = fmt.Appendf(nil, "%s row %d", tag, i)
	}
	return gen, []byte("index of " + tag), rows
}

func TestSharedSnapshots(t *testing.T) {
	keepTwoSnapshots(t)
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			sh := e.open(t)
			gen, index, rows := snapshotOf(chunkRows+50, "a")
			if _, ok, _, err := sh.SnapshotIndex(ctx, gen); ok || err != nil {
				t.Fatalf("an absent snapshot: ok %v, %v", ok, err)
			}
			// An incomplete snapshot (rows, no index: a writer that died
			// half way) is not visible.
			e.exec(t, `INSERT INTO {snapshots}(gen, idx, rows, bytes, created, last_used) VALUES (?, NULL, 0, 0, ?, ?)`, gen[:], time.Now().Unix(), time.Now().Unix())
			e.exec(t, `INSERT INTO {rows}(gen, name, data) VALUES (?, ?, ?)`, gen[:], "name0000", Seal(SealSnapshot, SnapshotKeyBytes(gen, "name0000"), rows["name0000"]))
			if _, ok, _, err := sh.SnapshotIndex(ctx, gen); ok || err != nil {
				t.Fatalf("an incomplete snapshot: ok %v, %v", ok, err)
			}
			if ok, err := sh.HaveSnapshot(ctx, gen); ok || err != nil {
				t.Fatalf("HaveSnapshot of an incomplete snapshot: %v, %v", ok, err)
			}
			if got, _, err := sh.SnapshotRows(ctx, gen, []string{"name0000"}); len(got) != 0 || err != nil {
				t.Fatalf("rows of an incomplete snapshot: %d, %v", len(got), err)
			}
			if err := sh.PutSnapshot(ctx, gen, index, rows); err != nil {
				t.Fatal(err)
			}
			idx, ok, corrupt, err := sh.SnapshotIndex(ctx, gen)
			if err != nil || !ok || len(corrupt) > 0 || string(idx) != string(index) {
				t.Fatalf("SnapshotIndex: %q %v %q %v", idx, ok, corrupt, err)
			}
			if ok, err := sh.HaveSnapshot(ctx, gen); !ok || err != nil {
				t.Fatalf("HaveSnapshot of a complete snapshot: %v, %v", ok, err)
			}
			names := []string{"name0000", "name0003", fmt.Sprintf("name%04d", chunkRows+20), "absent"}
			got, corrupt, err := sh.SnapshotRows(ctx, gen, names)
			if err != nil || len(corrupt) > 0 {
				t.Fatal(err, corrupt)
			}
			if len(got) != 3 {
				t.Errorf("%d rows back, want 3 (one absent)", len(got))
			}
			for _, n := range names[:3] {
				if string(got[n]) != string(rows[n]) {
					t.Errorf("row %s = %q, want %q", n, got[n], rows[n])
				}
			}
			all, _, err := sh.SnapshotRows(ctx, gen, slices.Sorted(maps.Keys(rows)))
			if err != nil || len(all) != len(rows) {
				t.Fatalf("all rows: %d of %d, %v", len(all), len(rows), err)
			}
			// A complete snapshot put again is left as it is.
			_, _, other := snapshotOf(3, "other")
			if err := sh.PutSnapshot(ctx, gen, []byte("another index"), other); err != nil {
				t.Fatal(err)
			}
			idx, _, _, _ = sh.SnapshotIndex(ctx, gen)
			if string(idx) != string(index) {
				t.Errorf("a re-put changed the index to %q", idx)
			}
			if n := e.count(t, "rows", ""); n != len(rows) {
				t.Errorf("%d rows after a re-put, want %d", n, len(rows))
			}
			// A snapshot with no rows is complete too.
			empty := Gen(sha256.Sum256([]byte("empty tree")))
			if err := sh.PutSnapshot(ctx, empty, []byte("nothing"), nil); err != nil {
				t.Fatal(err)
			}
			if idx, ok, _, err := sh.SnapshotIndex(ctx, empty); !ok || err != nil || string(idx) != "nothing" {
				t.Errorf("an empty snapshot: %q %v %v", idx, ok, err)
			}
		})
	}
}

// Rows whose seal does not match (bytes flipped, another key's blob, not
// sealed at all) are left out, described, and never passed on.
func TestSharedCorruptRowsAreIgnored(t *testing.T) {
	keepTwoSnapshots(t)
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			sh := e.open(t)
			es := extracts(0, 4, "go")
			if err := sh.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			flipped := Seal(SealExtract, ExtractKeyBytes(es[0].ExtractKey), es[0].Data)
			flipped[len(flipped)-1] ^= 1
			e.exec(t, `UPDATE {extracts} SET data = ? WHERE sha256 = ?`, flipped, es[0].SHA256[:])
			e.exec(t, `UPDATE {extracts} SET data = ? WHERE sha256 = ?`, Seal(SealExtract, ExtractKeyBytes(es[2].ExtractKey), es[2].Data), es[1].SHA256[:])
			e.exec(t, `UPDATE {extracts} SET data = ? WHERE sha256 = ?`, []byte("raw"), es[3].SHA256[:])
			got, corrupt := getAll(t, sh, keysOf(es))
			if len(got) != 1 || !bytes.Equal(got[es[2].ExtractKey], es[2].Data) {
				t.Errorf("passed %d extractions, want only the sound one", len(got))
			}
			if len(corrupt) != 3 {
				t.Fatalf("corrupt = %q, want 3 lines", corrupt)
			}
			for _, c := range corrupt {
				if !strings.Contains(c, "(go) in "+sh.Where()) || !strings.Contains(c, "ignored, the file is read again") {
					t.Errorf("corrupt line %q does not say which, where and what happens", c)
				}
			}
			prefix := fmt.Sprintf("%x", es[0].SHA256[:6])
			if !slices.ContainsFunc(corrupt, func(c string) bool { return strings.Contains(c, prefix) }) {
				t.Errorf("no line names %s: %q", prefix, corrupt)
			}
			// Found corrupt, they are removed: the extraction read again
			// takes their place, and nothing is said twice.
			if have, err := sh.HaveExtracts(ctx, keysOf(es)); err != nil || len(have) != 1 {
				t.Errorf("after reading: %d extractions stored (%v), want the corrupt ones removed", len(have), err)
			}
			if err := sh.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			if got, corrupt := getAll(t, sh, keysOf(es)); len(got) != 4 || len(corrupt) != 0 {
				t.Errorf("after putting them again: %d read, corrupt %q", len(got), corrupt)
			}

			gen, index, rows := snapshotOf(5, "c")
			if err := sh.PutSnapshot(ctx, gen, index, rows); err != nil {
				t.Fatal(err)
			}
			e.exec(t, `UPDATE {rows} SET data = ? WHERE gen = ? AND name = ?`, Seal(SealSnapshot, SnapshotKeyBytes(gen, "name0001"), rows["name0001"]), gen[:], "name0002")
			got2, corrupt, err := sh.SnapshotRows(ctx, gen, []string{"name0001", "name0002"})
			if err != nil {
				t.Fatal(err)
			}
			if len(got2) != 1 || got2["name0002"] != nil || len(corrupt) != 1 || !strings.Contains(corrupt[0], `"name0002"`) {
				t.Errorf("rows %v, corrupt %q: want name0002 left out and described", slices.Collect(maps.Keys(got2)), corrupt)
			}
			// The snapshot is incomplete again, until a put makes it whole.
			if _, ok, _, err := sh.SnapshotIndex(ctx, gen); ok || err != nil {
				t.Errorf("a snapshot with a corrupt row is still complete (%v)", err)
			}
			if err := sh.PutSnapshot(ctx, gen, index, rows); err != nil {
				t.Fatal(err)
			}
			if got, corrupt, err := sh.SnapshotRows(ctx, gen, []string{"name0001", "name0002"}); err != nil || len(got) != 2 || len(corrupt) != 0 {
				t.Errorf("after putting it again: %d rows, corrupt %q, %v", len(got), corrupt, err)
			}
			// Another snapshot's index in this one's place.
			other, otherIndex, _ := snapshotOf(0, "d")
			e.exec(t, `UPDATE {snapshots} SET idx = ? WHERE gen = ?`, Seal(SealIndex, SnapshotKeyBytes(other, ""), otherIndex), gen[:])
			idx, ok, corrupt, err := sh.SnapshotIndex(ctx, gen)
			if err != nil || ok || idx != nil || len(corrupt) != 1 || !strings.Contains(corrupt[0], "index of snapshot") {
				t.Errorf("a corrupt index: %q %v %q %v", idx, ok, corrupt, err)
			}
		})
	}
}

func TestSharedStatsAndGC(t *testing.T) {
	keepTwoSnapshots(t)
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			sh := e.open(t)
			st, err := sh.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Engine != e.name || st.Where != sh.Where() || st.Schema == 0 || st.Extracts != 0 || !st.OldestUse.IsZero() {
				t.Errorf("empty store's stats: %+v", st)
			}
			es := extracts(0, 20, "go")
			if err := sh.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			oldGen, oldIndex, oldRows := snapshotOf(4, "old")
			usedGen, usedIndex, usedRows := snapshotOf(3, "used")
			for _, s := range []struct {
				gen   Gen
				index []byte
				rows  map[string][]byte
			}{{oldGen, oldIndex, oldRows}, {usedGen, usedIndex, usedRows}} {
				if err := sh.PutSnapshot(ctx, s.gen, s.index, s.rows); err != nil {
					t.Fatal(err)
				}
			}
			// A writer that died half way, long ago.
			deadGen, _, _ := snapshotOf(0, "dead")
			e.exec(t, `INSERT INTO {snapshots}(gen, idx, rows, bytes, created, last_used) VALUES (?, NULL, 0, 0, ?, ?)`, deadGen[:], 0, 0)
			e.exec(t, `INSERT INTO {rows}(gen, name, data) VALUES (?, ?, ?)`, deadGen[:], "x", []byte("half"))
			st, err = sh.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var dataBytes int64
			for _, x := range es {
				dataBytes += int64(len(Seal(SealExtract, ExtractKeyBytes(x.ExtractKey), x.Data)))
			}
			if st.Extracts != 20 || st.ExtractBytes != dataBytes || st.Snapshots != 2 || st.SnapshotRows != 7 || st.SnapshotBytes == 0 || st.TotalBytes == 0 || st.NewestUse.IsZero() {
				t.Errorf("stats %+v: want 20 extracts of %d bytes, 2 snapshots of 7 rows", st, dataBytes)
			}

			// Everything but extracts 0-4 and the used snapshot was last
			// used 40 days ago; 0-4 and the snapshot are used again now.
			long := time.Now().Add(-40 * 24 * time.Hour).Unix()
			e.exec(t, `UPDATE {extracts} SET last_used = ?, created = ?`, long, long)
			e.exec(t, `UPDATE {snapshots} SET last_used = ?, created = ? WHERE idx IS NOT NULL`, long, long)
			if _, err := sh.HaveExtracts(ctx, keysOf(es[0:2])); err != nil {
				t.Fatal(err)
			}
			getAll(t, sh, keysOf(es[2:5]))
			if _, ok, _, err := sh.SnapshotIndex(ctx, usedGen); !ok || err != nil {
				t.Fatal(ok, err)
			}
			gc, err := sh.GC(ctx, 30*24*time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if gc.Extracts != 15 || gc.Snapshots != 1 || gc.Rows != 5 || gc.Bytes == 0 {
				t.Errorf("GC removed %+v, want 15 extracts, 1 snapshot, 5 rows (4 + the dead one's)", gc)
			}
			have, err := sh.HaveExtracts(ctx, keysOf(es))
			if err != nil {
				t.Fatal(err)
			}
			if len(have) != 5 {
				t.Errorf("%d extracts left, want the 5 used", len(have))
			}
			if _, ok, _, _ := sh.SnapshotIndex(ctx, usedGen); !ok {
				t.Error("the used snapshot was collected")
			}
			if got, _, _ := sh.SnapshotRows(ctx, usedGen, slices.Collect(maps.Keys(usedRows))); len(got) != 3 {
				t.Errorf("the used snapshot has %d rows left, want 3", len(got))
			}
			if _, ok, _, _ := sh.SnapshotIndex(ctx, oldGen); ok {
				t.Error("the unused snapshot is still there")
			}
			if n := e.count(t, "snapshots", ""); n != 1 {
				t.Errorf("%d snapshot rows left in the table, want 1", n)
			}
			if n := e.count(t, "rows", ""); n != 3 {
				t.Errorf("%d snapshot rows left, want 3", n)
			}
			// Nothing is old now: a second GC removes nothing.
			if gc, err := sh.GC(ctx, 30*24*time.Hour); err != nil || gc != (GCStats{}) {
				t.Errorf("a second GC: %+v, %v", gc, err)
			}
		})
	}
}

// The local engine is one checkout's: it keeps the newest complete
// snapshot, and an extraction a file of the checkout holds however long
// ago it was used.
func TestLocalSharedKeepsWhatTheCheckoutUses(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openRoot(t, ""))
	sh := LocalShared(s)
	var gens []Gen
	for i := range 4 {
		gen, index, rows := snapshotOf(2, fmt.Sprint(i))
		gens = append(gens, gen)
		if err := sh.PutSnapshot(ctx, gen, index, rows); err != nil {
			t.Fatal(err)
		}
		// created is in seconds: make the order plain.
		if _, err := s.DB().ExecContext(ctx, `UPDATE shared_snapshots SET created = created - ? WHERE gen = ?`, 10*(4-i), gen[:]); err != nil {
			t.Fatal(err)
		}
	}
	for i, gen := range gens {
		_, ok, _, err := sh.SnapshotIndex(ctx, gen)
		if err != nil || ok != (i == 3) {
			t.Errorf("snapshot %d: present %v, %v; want only the newest", i, ok, err)
		}
	}
	var rows int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM shared_snapshot_rows`).Scan(&rows); err != nil || rows != 2 {
		t.Errorf("%d snapshot rows left, %v; want the newest snapshot's 2", rows, err)
	}

	es := extracts(0, 3, "go")
	if err := sh.PutExtracts(ctx, es); err != nil {
		t.Fatal(err)
	}
	held := GraphFile{Path: "a.go", GraphStamp: GraphStamp{SHA256: es[1].SHA256, Variant: "go", Format: 1}}
	if err := s.SaveGraph(ctx, []GraphFile{held}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE shared_extracts SET last_used = 0`); err != nil {
		t.Fatal(err)
	}
	gc, err := sh.GC(ctx, time.Hour)
	if err != nil || gc.Extracts != 2 {
		t.Errorf("GC: %+v, %v; want the 2 extracts no file holds", gc, err)
	}
	if have, _ := sh.HaveExtracts(ctx, keysOf(es)); len(have) != 1 || have[es[1].ExtractKey] != es[1].ExtractInfo {
		t.Errorf("left %v, want the one a.go holds", have)
	}
}

func TestSharedNoticesOfLocalIsNil(t *testing.T) {
	if n := SharedNotices(LocalShared(openStore(t, openRoot(t, "")))); n != nil {
		t.Errorf("notices %q", n)
	}
}

// keepTwoSnapshots has the local engine keep two complete snapshots
// during t, for tests of several snapshots in one store.
func keepTwoSnapshots(t *testing.T) {
	old := keepSnapshots
	keepSnapshots = 2
	t.Cleanup(func() { keepSnapshots = old })
}
