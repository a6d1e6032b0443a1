package tokenindex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cchub/store"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// workspaceOf writes files into a new directory and opens it with its
// store, once they are settled (a file written just now is one the index
// does not trust yet). Tests that wait run in parallel.
func workspaceOf(t *testing.T, files map[string]string) (*workspace.Root, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		writeOld(t, filepath.Join(dir, rel), content)
	}
	wstest.Settle(workspace.RacyWindow)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return root, db
}

// writeOld writes content to abs with its mtime put an hour back, as cp
// -p, tar x or touch -r leave a file: its ctime alone says it changed.
func writeOld(t *testing.T, abs, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(abs, old, old); err != nil {
		t.Fatal(err)
	}
}

// lacking lists, of every file the walk sees, those Lacks says lack lits.
func lacking(t *testing.T, root *workspace.Root, db *store.Store, lits ...string) map[string]bool {
	t.Helper()
	l, err := Lacks(context.Background(), root, db, bytesOf(lits))
	if err != nil {
		t.Fatal(err)
	}
	return answers(t, root, l)
}

func bytesOf(lits []string) [][]byte {
	var ls [][]byte
	for _, l := range lits {
		ls = append(ls, []byte(l))
	}
	return ls
}

// answers is the files of root that l says lack its literals.
func answers(t *testing.T, root *workspace.Root, l *Lacking) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if err := root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && l.Has(rel, d) {
			out[rel] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestUpdateIndexesTextAndFollowsChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{
		"a.go":         "package a\n\nfunc Alpha() {}\n",
		"b.txt":        "beta gamma\n",
		"dir/c.py":     "def gamma(): return 'ALPHA'\n",
		"bin.dat":      "alpha\x00beta",
		".gitignore":   "ignored/\n",
		"ignored/x.go": "package x // alpha\n",
	})
	st, err := Update(ctx, root, db, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// bin.dat is not text; ignored/ is not walked.
	if st.Files != 4 || st.Read != 4 || st.Built != 4 || st.Removed != 0 {
		t.Errorf("first Update: %+v, want 4 files read and built", st)
	}
	got := lacking(t, root, db, "alpha")
	if !got["b.txt"] || !got[".gitignore"] || got["a.go"] || got["dir/c.py"] || got["bin.dat"] {
		t.Errorf("lacking alpha: %v, want b.txt and .gitignore (a.go has Alpha, c.py ALPHA; bin.dat is not indexed)", got)
	}
	if got := lacking(t, root, db, "gamma", "beta"); !got["a.go"] || got["b.txt"] || !got["dir/c.py"] {
		t.Errorf("lacking gamma and beta: %v, want a.go and dir/c.py", got)
	}
	if got := lacking(t, root, db, "ab"); len(got) != 0 {
		t.Errorf("a literal under three bytes says nothing, but %v lack ab", got)
	}

	// Nothing changed: nothing is read.
	if st, err = Update(ctx, root, db, nil, nil); err != nil || st.Read != 0 || st.Files != 4 {
		t.Errorf("second Update: %+v, %v; want nothing read", st, err)
	}

	// b.txt changed by a shell: not trusted until indexed again, and
	// then it holds alpha.
	writeOld(t, filepath.Join(root.Dir(), "b.txt"), "beta alpha\n")
	if got := lacking(t, root, db, "alpha"); got["b.txt"] {
		t.Error("b.txt changed since it was indexed, yet the index says it lacks alpha")
	}
	if st, err = Update(ctx, root, db, nil, nil); err != nil || st.Read != 1 || st.Built != 1 {
		t.Errorf("Update after a change: %+v, %v; want b.txt read and built", st, err)
	}
	if got := lacking(t, root, db, "alpha"); got["b.txt"] {
		t.Error("b.txt holds alpha now, yet the index says it lacks it")
	}

	// A file written just now is read, but its Identity is not kept: it
	// may change again within its times' resolution. So is b.txt again,
	// changed within the racy window of the last Update.
	if err := os.WriteFile(filepath.Join(root.Dir(), "new.txt"), []byte("delta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err = Update(ctx, root, db, nil, nil); err != nil || st.Read != 2 {
		t.Errorf("Update with a new file: %+v, %v; want new.txt and b.txt read", st, err)
	}
	if got := lacking(t, root, db, "alpha"); got["new.txt"] {
		t.Error("new.txt was written just now, yet the index trusts its stamp")
	}

	// Removed files, and files that became binary, are forgotten.
	if err := os.Remove(filepath.Join(root.Dir(), "a.go")); err != nil {
		t.Fatal(err)
	}
	writeOld(t, filepath.Join(root.Dir(), "dir/c.py"), "\x00\x01")
	if st, err = Update(ctx, root, db, nil, nil); err != nil || st.Removed != 2 {
		t.Errorf("Update after removals: %+v, %v; want 2 forgotten", st, err)
	}
}

// A second checkout of the same files takes the filters from the shared
// store instead of building them.
func TestUpdateTakesFiltersFromTheSharedStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string]string{"a.go": "package a // alpha\n", "b.txt": "beta\n", "c.txt": "beta\n"}
	rootA, dbA := workspaceOf(t, files)
	shA := store.LocalShared(dbA)
	if st, err := Update(ctx, rootA, dbA, shA, nil); err != nil || st.Built != 2 {
		t.Fatalf("A: %+v, %v; want 2 filters built (b.txt and c.txt hold the same)", st, err)
	}
	rootB, dbB := workspaceOf(t, files)
	st, err := Update(ctx, rootB, dbB, shA, nil)
	if err != nil || st.Built != 0 || st.Fetched != 3 || st.Files != 3 {
		t.Fatalf("B: %+v, %v; want all 3 from the shared store", st, err)
	}
	if got := lacking(t, rootB, dbB, "alpha"); !got["b.txt"] || !got["c.txt"] || got["a.go"] {
		t.Errorf("B lacking alpha: %v", got)
	}
}

// Update reads a few files at a time, so that only a batch's sources are
// held: with or without a shared store, a content met again in a later
// batch takes the filter built for it in an earlier one (built once, not
// fetched back), and every file's filter answers as one built alone.
func TestUpdateInBatchesBuildsEachContentOnce(t *testing.T) {
	defer func(f int, b int64) { maxBatchFiles, maxBatchBytes = f, b }(maxBatchFiles, maxBatchBytes)
	maxBatchFiles, maxBatchBytes = 3, 40
	ctx := context.Background()
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("content number %d\n", i%4) // 4 contents
	}
	files["big.txt"] = strings.Repeat("larger than a batch's bytes\n", 4)
	for _, shared := range []bool{false, true} {
		root, db := workspaceOf(t, files)
		var sh store.Shared
		if shared {
			sh = store.LocalShared(db)
		}
		st, err := Update(ctx, root, db, sh, nil)
		if err != nil || st.Built != 5 || st.Fetched != 0 || st.Read != 11 || st.Files != 11 {
			t.Fatalf("shared store %v: %+v, %v; want 11 read, 5 contents built, none fetched", shared, st, err)
		}
		got := lacking(t, root, db, "number 3")
		for rel, content := range files {
			if got[rel] == strings.Contains(content, "number 3") {
				t.Errorf("shared store %v: %s lacks \"number 3\": %v, holding %q", shared, rel, got[rel], content)
			}
		}
	}
}

// A filter that does not decode (a damaged row) is not trusted: its file
// is read, and Update builds it again.
func TestADamagedFilterIsReadAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{"b.txt": "beta\n"})
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DB().ExecContext(ctx, `UPDATE token_files SET filter = x'0102'`); err != nil {
		t.Fatal(err)
	}
	removePack(t, root) // the store is read
	if got := lacking(t, root, db, "alpha"); len(got) != 0 {
		t.Errorf("a damaged filter was trusted: %v", got)
	}
	if st, err := Update(ctx, root, db, nil, nil); err != nil || st.Read != 1 || st.Built != 1 {
		t.Errorf("Update over a damaged filter: %+v, %v; want it read and built", st, err)
	}
	if got := lacking(t, root, db, "alpha"); !got["b.txt"] {
		t.Errorf("after Update, lacking alpha: %v", got)
	}
}

// The index held in memory answers as the one read per question, and its
// generation moves on only when an Update changes something.
func TestHeldIndexAnswersAsTheStoredOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{"a.go": "package a // alpha\n", "b.txt": "beta gamma\n", "c/d.txt": "ALPHA beta\n"})
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	x, err := Load(ctx, root, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, lits := range [][]string{{"alpha"}, {"beta"}, {"gamma", "beta"}, {"zeta"}, {"ab"}} {
		stored := lacking(t, root, db, lits...)
		if held := answers(t, root, x.Lacks(bytesOf(lits))); !reflect.DeepEqual(held, stored) {
			t.Errorf("%q: held %v, stored %v", lits, held, stored)
		}
		if len(lits) == 1 && lits[0] == "zeta" && len(stored) != 3 {
			t.Errorf("zeta: %v lack it, want every file", stored)
		}
	}
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.TokenGeneration(ctx); g != x.Gen {
		t.Errorf("an Update that changed nothing moved the generation from %d to %d", x.Gen, g)
	}
	writeOld(t, filepath.Join(root.Dir(), "b.txt"), "beta gamma delta\n")
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.TokenGeneration(ctx); g == x.Gen {
		t.Errorf("an Update that changed b.txt left the generation at %d", g)
	}
}

// cleanOnes is the files of root that l says parse cleanly.
func cleanOnes(t *testing.T, root *workspace.Root, l *Lacking) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if err := root.Walk(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && l.Clean(rel, d) {
			out[rel] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The syntax of the files Syntax wants is asked once per content, kept
// with the filters (store and pack), and answered for only while the
// file is as it was read; an index built without Syntax has it asked of
// every wanted file by the next Update with it, though none changed.
func TestUpdateKeepsTheSyntaxOfTheFilesItWants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{
		"a.py":     "x = 1\n",
		"b.py":     "def (:\n",
		"c.go":     "package c\n",
		"d/e.py":   "y = 2\n",
		"notes.md": "z\n",
	})
	var asked []string
	var mu sync.Mutex
	sx := &Syntax{
		Wants: func(rel string) bool { return filepath.Ext(rel) == ".py" },
		// Stands in for a parser: the file is clean unless it holds "(:".
		Clean: func(rel string, sha [32]byte, src []byte) (bool, bool) {
			mu.Lock()
			asked = append(asked, rel)
			mu.Unlock()
			if sha != sha256.Sum256(src) {
				t.Errorf("%s: the SHA-256 given is not the content's", rel)
			}
			return !bytes.Contains(src, []byte("(:")), rel != "d/e.py" // says it knew d/e.py's
		},
	}
	// First without it: nothing is known of anyone's syntax.
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	l, err := Lacks(ctx, root, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cleanOnes(t, root, l); len(got) != 0 {
		t.Errorf("clean with no syntax kept: %v", got)
	}
	st, err := Update(ctx, root, db, nil, sx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(asked)
	if want := []string{"a.py", "b.py", "d/e.py"}; !reflect.DeepEqual(asked, want) || st.Syntax != 3 || st.Parsed != 2 || st.Read != 3 {
		t.Errorf("Update asked the syntax of %v (%+v), want %v, read again for it", asked, st, want)
	}
	want := map[string]bool{"a.py": true, "d/e.py": true}
	check := func(when string) {
		t.Helper()
		l, err := Lacks(ctx, root, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cleanOnes(t, root, l); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: clean from the pack %v, want %v", when, got, want)
		}
		x, err := Load(ctx, root, db)
		if err != nil {
			t.Fatal(err)
		}
		if got := cleanOnes(t, root, x.Lacks(nil)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: clean from memory %v, want %v", when, got, want)
		}
	}
	check("indexed")

	// Known: not asked again.
	asked = nil
	if st, err := Update(ctx, root, db, nil, sx); err != nil || len(asked) != 0 || st.Read != 0 {
		t.Errorf("an Update with nothing changed asked %v (%+v, %v)", asked, st, err)
	}

	// A file changed by a shell is not vouched for until indexed again.
	writeOld(t, filepath.Join(root.Dir(), "a.py"), "x = (:\n")
	delete(want, "a.py")
	check("a.py broken since")
	if _, err := Update(ctx, root, db, nil, sx); err != nil || !reflect.DeepEqual(asked, []string{"a.py"}) {
		t.Errorf("after a.py changed, Update asked %v (%v), want a.py", asked, err)
	}
	check("a.py indexed broken")

	// From the store when the pack is gone.
	dir, err := root.StatePath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, PackName)); err != nil {
		t.Fatal(err)
	}
	check("no pack")
}

// A same-size edit whose mtime is put back (cp -p, rsync -t, tar x,
// touch -r) keeps the file's size and mtime, not its ctime: no answer is
// given for it, from the pack or from memory, and Update reads it again.
func TestASameSizeEditWithItsMtimePutBackIsReadAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta.\n"})
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := lacking(t, root, db, "alpha"); !got["b.txt"] {
		t.Fatalf("lacking alpha before the edit: %v, want b.txt", got)
	}
	x, err := Load(ctx, root, db)
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(root.Dir(), "b.txt")
	before, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(b, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(b); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the edit changed size or mtime: %v %v, was %v %v", after.Size(), after.ModTime(), before.Size(), before.ModTime())
	}
	if got := lacking(t, root, db, "alpha"); got["b.txt"] {
		t.Error("b.txt holds alpha now, yet the pack says it lacks it")
	}
	if got := answers(t, root, x.Lacks(bytesOf([]string{"alpha"}))); got["b.txt"] {
		t.Error("b.txt holds alpha now, yet the index in memory says it lacks it")
	}
	if st, err := Update(ctx, root, db, nil, nil); err != nil || st.Read != 1 {
		t.Errorf("Update after the edit: %+v, %v; want b.txt read", st, err)
	}
}

// Rows whose Identity is unknown (ctime 0: written before ctime was kept,
// store migration 9) vouch for nothing: their files are read and hashed
// once, keep their filters where the content is the same, and are
// trusted from then on.
func TestRowsWithoutCtimeAreReadOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, db := workspaceOf(t, map[string]string{"a.go": "package a // alpha\n", "b.txt": "beta\n"})
	if _, err := Update(ctx, root, db, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DB().ExecContext(ctx, `UPDATE token_files SET ctime = 0, inode = 0, dev = 0`); err != nil {
		t.Fatal(err)
	}
	removePack(t, root) // the store is read, as after the migration
	if got := lacking(t, root, db, "alpha"); len(got) != 0 {
		t.Errorf("rows without a ctime were trusted: %v lack alpha", got)
	}
	if st, err := Update(ctx, root, db, nil, nil); err != nil || st.Read != 2 || st.Built != 0 {
		t.Errorf("Update over rows without a ctime: %+v, %v; want both read, no filter built", st, err)
	}
	if got := lacking(t, root, db, "alpha"); !got["b.txt"] {
		t.Errorf("after Update, lacking alpha: %v, want b.txt", got)
	}
	if st, err := Update(ctx, root, db, nil, nil); err != nil || st.Read != 0 {
		t.Errorf("the Update after: %+v, %v; want nothing read", st, err)
	}
}

// A checkout that knows a file's syntax (its code graph parsed it) tells
// the shared store; another checkout of the same content learns it from
// there and parses nothing — by language: the same bytes under another
// language are parsed.
func TestSyntaxIsSharedByContentAndLanguage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string]string{"a.py": "x = 1\n", "b.py": "def (:\n", "c.go": "x = 1\n"}
	var mu sync.Mutex
	var parsedBy []string
	syntaxOf := func(who string, known bool) *Syntax {
		sx := &Syntax{
			Wants: func(rel string) bool { return true },
			// Stands in for a parser: clean unless it holds "(:".
			Clean: func(rel string, sha [32]byte, src []byte) (bool, bool) {
				mu.Lock()
				parsedBy = append(parsedBy, who+":"+rel)
				mu.Unlock()
				return !bytes.Contains(src, []byte("(:")), true
			},
			Shared: func(rel string) string { return filepath.Ext(rel) },
		}
		if known {
			sx.Known = func(rel string, sha [32]byte) (bool, bool) { return rel != "b.py", true }
		}
		return sx
	}
	rootA, dbA := workspaceOf(t, files)
	_, dbS := workspaceOf(t, nil)
	sh := store.LocalShared(dbS) // another store: the team's
	st, err := Update(ctx, rootA, dbA, sh, syntaxOf("A", true))
	if err != nil || st.Syntax != 3 || st.Parsed != 0 || st.SyntaxShared != 0 {
		t.Fatalf("A: %+v, %v; want 3 recorded, all known", st, err)
	}
	rootB, dbB := workspaceOf(t, files)
	st, err = Update(ctx, rootB, dbB, sh, syntaxOf("B", false))
	if err != nil || st.Syntax != 3 || st.Parsed != 0 || st.SyntaxShared != 3 {
		t.Fatalf("B: %+v, %v; want the 3 from the shared store, none parsed (parsed: %v)", st, err, parsedBy)
	}
	want := map[string]bool{"a.py": true, "c.go": true}
	if got := cleanOnes(t, rootB, mustLacks(t, rootB, dbB)); !reflect.DeepEqual(got, want) {
		t.Errorf("B: clean %v, want %v", got, want)
	}
	// C holds a.py's bytes as a .rb file: its own language, parsed.
	rootC, dbC := workspaceOf(t, map[string]string{"d.rb": "x = 1\n"})
	if st, err := Update(ctx, rootC, dbC, sh, syntaxOf("C", false)); err != nil || st.Parsed != 1 || st.SyntaxShared != 0 {
		t.Errorf("C: %+v, %v; want d.rb parsed (no record of its language)", st, err)
	}
	if !slices.Equal(parsedBy, []string{"C:d.rb"}) {
		t.Errorf("parsed: %v, want C's d.rb only", parsedBy)
	}
}

func mustLacks(t *testing.T, root *workspace.Root, db *store.Store) *Lacking {
	t.Helper()
	l, err := Lacks(context.Background(), root, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
