package codegraph

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cchub/store"
)

// copyInto copies the files of src (a directory) under dst/prefix.
func copyInto(t *testing.T, src, dst, prefix string, keep func(rel string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if keep != nil && !keep(filepath.ToSlash(rel)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, dst, filepath.Join(prefix, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshotCorpus is a workspace of every language the graph reads: the
// bundled workspaces, packages of this module, and (when python3 is
// there) packages of Python's standard library.
func snapshotCorpus(t *testing.T) string {
	dir := t.TempDir()
	copyInto(t, filepath.Join("..", "testdata", "workspaces"), dir, "ws", nil)
	for _, pkg := range []string{"codegraph", "store", "blast", "anchor"} {
		copyInto(t, filepath.Join("..", pkg), dir, filepath.Join("mod", pkg), func(rel string) bool {
			return !strings.Contains(rel, "/") && strings.HasSuffix(rel, ".go")
		})
	}
	out, err := exec.Command("python3", "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))").Output()
	if err != nil {
		if os.Getenv("CCHUB_REQUIRE_PEERS") != "" {
			t.Fatalf("python3: %v", err)
		}
		t.Logf("no python3 (%v): the corpus has no Python standard library", err)
		settle()
		return dir
	}
	lib := strings.TrimSpace(string(out))
	for _, pkg := range []string{"json", "email", "unittest", "asyncio"} {
		copyInto(t, filepath.Join(lib, pkg), dir, filepath.Join("py", pkg), func(rel string) bool { return strings.HasSuffix(rel, ".py") })
	}
	settle()
	return dir
}

// A new process answers from the snapshot `cchub index` saved exactly
// what it would answer by resolving every file: symbols, callers,
// callees and blast radii of every definition.
func TestSnapshotAnswersAsResolved(t *testing.T) {
	ctx := context.Background()
	dir := snapshotCorpus(t)
	full := persisted(t, dir)
	update(t, full)
	saved, err := full.SaveSnapshot(ctx)
	if err != nil || !saved {
		t.Fatalf("SaveSnapshot = %v, %v; want one saved", saved, err)
	}
	if again, err := full.SaveSnapshot(ctx); err != nil || again {
		t.Fatalf("SaveSnapshot again = %v, %v; want nothing written", again, err)
	}
	lazy := persisted(t, dir)
	if st := update(t, lazy); st.Read != 0 {
		t.Fatalf("second process read %d files", st.Read)
	}
	// The full index answers from its own resolution; the lazy one must
	// not have loaded a file before its first answer.
	full.direct = false
	b, release, err := lazy.graph(ctx)
	if err != nil {
		t.Fatal(err)
	}
	isLazy := b.lazy != nil
	release()
	if !isLazy {
		t.Fatal("the second process resolved the files instead of reading the snapshot")
	}
	fb, release, _ := full.graph(ctx)
	var keys []string
	for k := range fb.defs {
		keys = append(keys, k)
	}
	release()
	sort.Strings(keys)
	js := func(v any, err error) string {
		b, _ := json.Marshal(v)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
	checked := 0
	for _, k := range keys {
		// A key (path:Type.Name#n) is not a query; path:LINE:Name is.
		d := fb.defs[k]
		name := d.Path + ":" + strconv.Itoa(d.Start) + ":" + d.Name
		if d.Type != "" {
			name = d.Path + ":" + strconv.Itoa(d.Start) + ":" + d.Type + "." + d.Name
		}
		for _, q := range []struct {
			what string
			ask  func(x *Index) string
		}{
			{"callers", func(x *Index) string { d, es, err := x.Callers(name); return js([]any{d, es}, err) }},
			{"callees", func(x *Index) string { d, es, err := x.Callees(name); return js([]any{d, es}, err) }},
			{"blast", func(x *Index) string {
				a, err := x.BlastWith(ctx, []string{name}, BlastOptions{Depth: 2})
				return js(a, err)
			}},
		} {
			want, got := q.ask(full), q.ask(lazy)
			if want != got {
				t.Fatalf("%s %s:\nresolved: %s\nsnapshot: %s", q.what, name, want, got)
			}
			checked++
		}
	}
	for _, pat := range []string{"*", "Test*", "*.Update", "Index.*", "encode", "*_*"} {
		want, got := js(full.Symbols(pat)), js(lazy.Symbols(pat))
		if want != got {
			i := 0
			for i < len(want) && i < len(got) && want[i] == got[i] {
				i++
			}
			t.Fatalf("symbols %q differ at %d (len %d/%d):\nresolved: %.400s\nsnapshot: %.400s", pat, i, len(want), len(got), want[max(0, i-200):], got[max(0, i-200):])
		}
	}
	a, err := lazy.BlastWith(ctx, []string{"mod/codegraph/codec.go:decode"}, BlastOptions{Depth: -1, AllPossible: true})
	want, _ := full.BlastWith(ctx, []string{"mod/codegraph/codec.go:decode"}, BlastOptions{Depth: -1, AllPossible: true})
	if js(a, err) != js(want, nil) {
		t.Fatalf("unlimited blast differs")
	}
	if b, release, _ := lazy.graph(ctx); b.lazy == nil {
		release()
		t.Fatal("the snapshot was dropped while answering")
	} else {
		release()
	}
	if n := lazy.Notices(); len(n) != 0 {
		t.Fatalf("notices: %q", n)
	}
	// Questions asked at once of a fresh process share its snapshot
	// (they fill it as they go, one at a time).
	par := persisted(t, dir)
	update(t, par)
	var wg sync.WaitGroup
	errs := make(chan string, len(keys))
	for i, k := range keys {
		if i%7 != 0 {
			continue
		}
		d := fb.defs[k]
		name := d.Path + ":" + strconv.Itoa(d.Start) + ":" + d.Qual()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, es, err := par.Callers(name)
			_, want, _ := full.Callers(name)
			if js(es, err) != js(want, nil) {
				errs <- name
			}
		}()
	}
	wg.Wait()
	close(errs)
	for n := range errs {
		t.Errorf("callers of %s asked at once differ", n)
	}
	t.Logf("%d definitions, %d answers compared", len(keys), checked)
}

// A snapshot row that is corrupt, or a database that fails midway, makes
// the query answer from the files, resolved, and say so once.
func TestSnapshotCorruptRowFallsBackToResolving(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc A() { B() }\n\nfunc B() { C() }\n\nfunc C() {}\n")
	x := persisted(t, dir)
	update(t, x)
	if ok, err := x.SaveSnapshot(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	root := x.root
	db, err := store.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.DB().ExecContext(ctx, `UPDATE shared_snapshot_rows SET data = ? WHERE name = 'B'`, store.Seal(store.SealSnapshot, []byte("elsewhere"), []byte{1})); err != nil {
		t.Fatal(err)
	}
	y := persisted(t, dir)
	update(t, y)
	_, es, err := y.Callers("C")
	if err != nil || len(es) != 1 || es[0].Caller == nil || es[0].Caller.Name != "B" {
		t.Fatalf("callers of C = %+v, %v; want B", es, err)
	}
	notes := strings.Join(y.Notices(), "\n")
	if !strings.Contains(notes, "checksum") || !strings.Contains(notes, "ignored") {
		t.Fatalf("notices = %q; want the fallback said", notes)
	}
	b, release, _ := y.graph(ctx)
	lazyStill := b.lazy != nil
	release()
	if lazyStill {
		t.Fatal("still reading the corrupt snapshot")
	}
	// The snapshot is made whole again by the process that resolved, and
	// the next one reads it without a word.
	if ok, err := y.SaveSnapshot(ctx); !ok || err != nil {
		t.Fatalf("SaveSnapshot after the corrupt row = %v, %v; want it written again", ok, err)
	}
	z := persisted(t, dir)
	update(t, z)
	if _, es, err := z.Callers("C"); err != nil || len(es) != 1 {
		t.Fatalf("callers of C after repair = %+v, %v", es, err)
	}
	if b, release, _ := z.graph(ctx); b.lazy == nil {
		release()
		t.Fatal("the repaired snapshot was not read")
	} else {
		release()
	}
	if n := z.Notices(); len(n) != 0 {
		t.Fatalf("notices after repair: %q", n)
	}
}
