package textedit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"cchub/textfmt"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// Real inputs: the Go tree this test runs with, and Python's stdlib.

var (
	gorootOnce sync.Once
	gorootDir  string
	pyOnce     sync.Once
	pyDir      string
)

func goroot(tb testing.TB) string {
	tb.Helper()
	gorootOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err == nil {
			gorootDir = strings.TrimSpace(string(out))
		}
	})
	if gorootDir == "" {
		tb.Fatal("go env GOROOT failed")
	}
	return gorootDir
}

// pyStdlib is Python's stdlib directory, a peer (see requirePeer).
func pyStdlib(tb testing.TB) string {
	tb.Helper()
	pyOnce.Do(func() {
		out, err := exec.Command("python3", "-c", `import sysconfig;print(sysconfig.get_path("stdlib"))`).Output()
		if err == nil {
			d := strings.TrimSpace(string(out))
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				pyDir = d
			}
		}
	})
	wstest.RequirePeer(tb, "python3 and its standard library (apt-get install python3)", pyDir != "")
	return pyDir
}

// readGo and readPy read copies of Go's and Python's own source kept in
// testdata/: tests that assert exact text must not change with the host's
// Go or Python.
func readGo(tb testing.TB, rel string) string { return readCopy(tb, "goroot/"+rel) }

func readPy(tb testing.TB, rel string) string { return readCopy(tb, "pystdlib/"+rel) }

// mustOnce returns s's only occurrence in body, failing if it is not
// there exactly once: tests state their premises.
func mustOnce(tb testing.TB, body, s string) int {
	tb.Helper()
	if n := strings.Count(body, s); n != 1 {
		tb.Fatalf("premise: %q occurs %d times, want 1", s, n)
	}
	return strings.Index(body, s)
}

func lineOf(body string, off int) int { return 1 + strings.Count(body[:off], "\n") }

// apply runs Apply and fails the test on error.
func apply(tb testing.TB, body string, ch Change) string {
	tb.Helper()
	a, err := Apply([]byte(body), "f", ch)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	return string(a.Data)
}

// refused runs Apply, wants an error matching target, and returns it.
func refused(tb testing.TB, body string, ch Change, target error) error {
	tb.Helper()
	a, err := Apply([]byte(body), "f", ch)
	if err == nil {
		tb.Fatalf("Apply applied an edit it should refuse; changed region:\n%s", a.Snippet)
	}
	if target != nil && !errors.Is(err, target) {
		tb.Fatalf("Apply error = %v, want %v", err, target)
	}
	return err
}

func TestExactEditOnRealFile(t *testing.T) {
	body := readGo(t, "net/http/server.go")
	old := "func (c *conn) close() {\n\tc.finalFlush()\n\tc.rwc.Close()\n}"
	nw := "func (c *conn) close() {\n\tc.finalFlush()\n\tc.setState(c.rwc, StateClosed, runHooks)\n\tc.rwc.Close()\n}"
	at := mustOnce(t, body, old)
	a, err := Apply([]byte(body), "net/http/server.go", Change{Old: old, New: nw})
	if err != nil {
		t.Fatal(err)
	}
	if want := body[:at] + nw + body[at+len(old):]; string(a.Data) != want {
		t.Fatal("exact edit did not give the plain replacement")
	}
	first := lineOf(body, at)
	if a.FirstLine != first || a.LastLine != first+4 || a.Replacements != 1 {
		t.Errorf("region = %d-%d (%d), want %d-%d (1)", a.FirstLine, a.LastLine, a.Replacements, first, first+4)
	}
	if !strings.Contains(a.Snippet, fmt.Sprintf("\n%d\t\tc.setState", first+2)) {
		t.Errorf("snippet does not number the new line %d:\n%s", first+2, a.Snippet)
	}
}

func TestAmbiguousMessageListsLines(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	old := "\treturn -1\n"
	// The places are the lines that are "\treturn -1", not the deeper
	// "\t\treturn -1" ones that contain the text after their first tab.
	var lines []string
	for off := 0; ; {
		i := strings.Index(body[off:], "\n"+old)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprintf("f:%d", lineOf(body, off+i+1)))
		off += i + 1
	}
	if deeper := strings.Count(body, "\t"+old); deeper == 0 {
		t.Fatal("premise: strings.go has deeper return -1 lines")
	}
	if len(lines) < 3 {
		t.Fatalf("premise: want several occurrences, got %d", len(lines))
	}
	err := refused(t, body, Change{Old: old, New: "\treturn -2\n"}, ErrAmbiguous)
	shown := lines
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("and %d more", len(lines)-10))
	}
	want := fmt.Sprintf("Found %d matches for old_string (at %s). Include more surrounding lines to make it unique, or set replace_all.", len(lines), strings.Join(shown, ", "))
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q\nwant it to contain %q", err, want)
	}
}

// Overlapping occurrences are several places too: "}\n}" in "}\n}\n}" is
// two, and picking the first would be a guess.
func TestOverlappingOccurrencesAreAmbiguous(t *testing.T) {
	body := "var primes = []int{\n2,\n3,\n3,\n3,\n5,\n}\n"
	refused(t, body, Change{Old: "3,\n3,", New: "3,\n4,"}, ErrAmbiguous)
	apply(t, body, Change{Old: "2,\n3,", New: "2,\n4,"}) // unique
}

func TestReplaceAll(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	old := "\treturn -1\n"
	n := strings.Count(body, "\n"+old)
	a, err := Apply([]byte(body), "f", Change{Old: old, New: "\treturn notFound\n", ReplaceAll: true})
	if err != nil {
		t.Fatal(err)
	}
	// Every line that is old_string, and no line indented deeper.
	if want := strings.ReplaceAll(body, "\n"+old, "\n\treturn notFound\n"); string(a.Data) != want || a.Replacements != n {
		t.Fatalf("replace_all: %d replacements, want %d, data equal = %v", a.Replacements, n, string(a.Data) == want)
	}
}

// replace_all replaces the places the matcher found, and only those: text
// equal to the match inside a deeper-indented line is another place.
func TestReplaceAllOnlyMatchedPlaces(t *testing.T) {
	body := "func f() {\n\tx()\n\tif y {\n\t\tx()\n\t}\n\tx()\n}\n"
	// Trailing blanks: the second layer finds the two lines indented by
	// one tab; "\tx()\n" also occurs inside "\t\tx()\n", which is not one.
	got := apply(t, body, Change{Old: "\tx()  \n", New: "\tz()\n", ReplaceAll: true})
	want := "func f() {\n\tz()\n\tif y {\n\t\tx()\n\t}\n\tz()\n}\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A forgiving match whose places differ in text is refused.
	body2 := "a  b\nx\na b\n"
	refused(t, body2, Change{Old: "a   b", New: "c", ReplaceAll: true}, ErrAmbiguous)
}

func TestRefusesNoChangeAndEmptyOld(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	refused(t, body, Change{Old: "func Cut(", New: "func Cut("}, ErrNoChange)
	err := refused(t, body, Change{Old: "", New: "package strings\n"}, ErrEmptyOld)
	if !strings.Contains(err.Error(), "write") {
		t.Errorf("empty old_string error does not point at write: %v", err)
	}
	// The same after line-ending normalization is the same.
	refused(t, body, Change{Old: "a\r\nb", New: "a\nb"}, ErrNoChange)
}

func TestNotFoundNamesNearestLines(t *testing.T) {
	body := readGo(t, "net/http/server.go")
	real := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	at := mustOnce(t, body, real)
	first := lineOf(body, at)
	// The signature and the last statement misremembered: no layer may
	// take it, but the error shows where the model should look.
	old := "func (c *conn) isHijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijacked\n}"
	err := refused(t, body, Change{Old: old, New: "x"}, ErrNotFound)
	want := fmt.Sprintf("The closest text is at f:%d-%d (read path=f offset=%d limit=5)", first, first+4, first)
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "read") {
		t.Errorf("error = %q\nwant it to contain %q", err, want)
	}
	// Nothing near: no line range is invented.
	err = refused(t, body, Change{Old: "zzqx wvvy", New: "x"}, ErrNotFound)
	if strings.Contains(err.Error(), "closest") {
		t.Errorf("error names a closest text for gibberish: %v", err)
	}
}

// A forgiving match much larger than old_string is refused: collapsing
// whitespace lets "return x def f" span the blank lines between two
// functions.
func TestDisproportionateSpanRefused(t *testing.T) {
	body := readPy(t, "textwrap.py")
	re := regexp.MustCompile(`\n    return ([^\n]+)\n\n\ndef (\w+)`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("premise: textwrap.py has a function end followed by a def")
	}
	old := "return " + m[1] + " def " + m[2]
	mustOnce(t, collapse(body, nil), old)
	err := refused(t, body, Change{Old: old, New: "return None def " + m[2]}, ErrSpanTooLarge)
	if !strings.Contains(err.Error(), "(read path=f offset=") {
		t.Errorf("span error does not say how to re-read: %v", err)
	}
	// The same text within a proportionate span is taken.
	small := "return " + m[1] + "\n\n\ndef " + m[2]
	apply(t, body, Change{Old: small, New: "return None\n\n\ndef " + m[2]})
}

// Whatever layer matched, the answer never names it.
func TestResultNeverNamesLayer(t *testing.T) {
	body := readGo(t, "net/http/server.go")
	orig := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	mustOnce(t, body, orig)
	variants := map[string]string{
		"exact":    orig,
		"trailing": strings.ReplaceAll(orig, "\n", "  \n"),
		"anchors":  strings.Replace(orig, "defer c.mu.Unlock()", "defer c.mu.Unlck()", 1),
		"spaces":   strings.ReplaceAll(orig, "\t", "    "),
		"escaped":  strings.ReplaceAll(strings.ReplaceAll(orig, "\t", `\t`), "\n", `\n`),
		"blank":    "\n\n" + orig + "\n\n",
	}
	banned := regexp.MustCompile(`(?i)layer|fuzzy|forgiv|toleran|trim|whitespace|escape|anchor|similar|indent|normaliz|heuristic|approx`)
	root := newRoot(t)
	n := 0
	for name, old := range variants {
		n++
		file := fmt.Sprintf("case%d.go", n)
		path := filepath.Join(root.Dir(), file)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		nw := strings.Replace(old, "return c.hijackedv", "return c.hijackedv // checked", 1)
		r, err := NewFiles(root).Edit(t.Context(), file, Change{Old: old, New: nw}, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m := banned.FindString(r.Text()); m != "" {
			t.Errorf("%s: result names how it matched (%q):\n%s", name, m, r.Text())
		}
		got, _ := os.ReadFile(path)
		if want := strings.Replace(body, "return c.hijackedv\n", "return c.hijackedv // checked\n", 1); string(got) != want {
			t.Errorf("%s: file is not the intended edit", name)
		}
	}
}

func TestCRLFFileStaysCRLF(t *testing.T) {
	lf := readGo(t, "strings/strings.go")
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	old := "func Cut(s, sep string) (before, after string, found bool) {\n\treturn stringslite.Cut(s, sep)\n}"
	nw := "func Cut(s, sep string) (before, after string, found bool) {\n\t// Cut is stringslite's.\n\treturn stringslite.Cut(s, sep)\n}"
	want := strings.ReplaceAll(strings.Replace(lf, old, nw, 1), "\n", "\r\n")
	// LF old/new on a CRLF file.
	if got := apply(t, crlf, Change{Old: old, New: nw}); got != want {
		t.Fatal("LF edit of CRLF file: result is not the CRLF file with the edit")
	}
	// CRLF old/new on a CRLF file.
	if got := apply(t, crlf, Change{Old: strings.ReplaceAll(old, "\n", "\r\n"), New: strings.ReplaceAll(nw, "\n", "\r\n")}); got != want {
		t.Fatal("CRLF edit of CRLF file: wrong result")
	}
	// CRLF old/new on an LF file: the file stays LF.
	got := apply(t, lf, Change{Old: strings.ReplaceAll(old, "\n", "\r\n"), New: strings.ReplaceAll(nw, "\n", "\r\n")})
	if got != strings.Replace(lf, old, nw, 1) || strings.Contains(got, "\r") {
		t.Fatal("CRLF edit of LF file: result is not LF with the edit")
	}
	// A forgiving match on a CRLF file (indented with spaces) stays CRLF too.
	got = apply(t, crlf, Change{Old: strings.ReplaceAll(old, "\t", "    "), New: strings.ReplaceAll(nw, "\t", "    ")})
	if got != want {
		t.Fatal("near-miss edit of CRLF file: result is not the CRLF file with the edit")
	}
}

func TestBOMKept(t *testing.T) {
	body := "\uFEFF" + readPy(t, "textwrap.py")
	old := "class TextWrapper:"
	mustOnce(t, body, old)
	got := apply(t, body, Change{Old: old, New: "class TextWrapper:  # wraps"})
	if !strings.HasPrefix(got, "\uFEFF") || strings.Count(got, "\uFEFF") != 1 {
		t.Fatal("BOM lost or doubled")
	}
	if got != strings.Replace(body, old, "class TextWrapper:  # wraps", 1) {
		t.Fatal("wrong result")
	}
}

func TestTrailingNewlineKept(t *testing.T) {
	body := readGo(t, "strings/builder.go")
	if !strings.HasSuffix(body, "}\n") {
		t.Fatal("premise: builder.go ends with }\\n")
	}
	lastFunc := body[strings.LastIndex(body, "\nfunc ")+1:]
	// new_string without the final newline does not take the file's.
	got := apply(t, body, Change{Old: lastFunc, New: strings.TrimSuffix(lastFunc, "\n") + " // end"})
	if !strings.HasSuffix(got, "} // end\n") {
		t.Errorf("file lost its final newline: %q", got[len(got)-20:])
	}
	// A file without a final newline stays without, whether or not
	// old_string and new_string end with one.
	noNL := strings.TrimSuffix(body, "\n")
	for _, end := range []string{"}", "}\n", "  }\n"} {
		head := strings.TrimSuffix(lastFunc, "}\n")
		got := apply(t, noNL, Change{Old: head + end, New: head + strings.Replace(end, "}", "} // end", 1)})
		if !strings.HasSuffix(got, "} // end") {
			t.Errorf("old ending %q: file without final newline gained one or lost the edit: %q", end, got[len(got)-20:])
		}
	}
	// An edit in the middle leaves the end alone.
	got = apply(t, noNL, Change{Old: "type Builder struct {", New: "type Builder struct { // builds"})
	if strings.HasSuffix(got, "\n") {
		t.Error("middle edit added a final newline")
	}
}

func newRoot(tb testing.TB) *workspace.Root {
	tb.Helper()
	r, err := workspace.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestFilesEditKeepsModeAndLeavesNoTemp(t *testing.T) {
	root := newRoot(t)
	body := readGo(t, "strings/builder.go")
	path := filepath.Join(root.Dir(), "tool.sh")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	f := NewFiles(root)
	for i := 0; i < 5; i++ {
		old := "type Builder struct {"
		if i > 0 {
			old = fmt.Sprintf("type Builder struct { // %d", i-1)
		}
		if _, err := f.Edit(t.Context(), "tool.sh", Change{Old: old, New: fmt.Sprintf("type Builder struct { // %d", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", st.Mode().Perm())
	}
	if names := workFiles(t, root.Dir()); len(names) != 1 {
		t.Errorf("directory holds %v; want only tool.sh (no temp files)", names)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Contains(got, []byte("type Builder struct { // 4\n")) {
		t.Error("edits not on disk")
	}
}

func TestStaleReadRefused(t *testing.T) {
	root := newRoot(t)
	body := readGo(t, "strings/builder.go")
	path := filepath.Join(root.Dir(), "b.go")
	os.WriteFile(path, []byte(body), 0o644)
	f := NewFiles(root)
	var seen Seen
	seen.Saw("b.go", []byte(body))
	// Someone else changes the file.
	changed := strings.Replace(body, "func (b *Builder) Len() int", "func (b *Builder) Length() int", 1)
	os.WriteFile(path, []byte(changed), 0o644)
	_, err := f.Edit(t.Context(), "b.go", Change{Old: "type Builder struct {", New: "type Builder struct { // x"}, &seen)
	if !errors.Is(err, ErrStale) {
		t.Fatalf("edit after a change on disk: err = %v, want ErrStale", err)
	}
	if !strings.Contains(err.Error(), "b.go") || !strings.Contains(err.Error(), "read it again") {
		t.Errorf("stale error does not name the file and ask to read again: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != changed {
		t.Fatal("stale edit changed the file")
	}
	// Reading again makes it editable, and the edit is remembered as seen.
	seen.Saw("b.go", []byte(changed))
	if _, err := f.Edit(t.Context(), "b.go", Change{Old: "type Builder struct {", New: "type Builder struct { // x"}, &seen); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Edit(t.Context(), "b.go", Change{Old: "struct { // x", New: "struct { // y"}, &seen); err != nil {
		t.Fatalf("second edit after own edit: %v", err)
	}
	// A file never seen is editable.
	os.WriteFile(filepath.Join(root.Dir(), "c.go"), []byte(body), 0o644)
	if _, err := f.Edit(t.Context(), "c.go", Change{Old: "type Builder struct {", New: "type Builder struct { // z"}, &seen); err != nil {
		t.Fatalf("edit of a never-seen file: %v", err)
	}
	// Content, not time: rewriting the same bytes is not a change.
	os.WriteFile(path, mustRead(t, path), 0o644)
	if _, err := f.Edit(t.Context(), "b.go", Change{Old: "struct { // y", New: "struct { // w"}, &seen); err != nil {
		t.Fatalf("edit after same-content rewrite: %v", err)
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestEditMissingFileAndOutsideRoot(t *testing.T) {
	root := newRoot(t)
	f := NewFiles(root)
	if _, err := f.Edit(t.Context(), "nope.go", Change{Old: "a", New: "b"}, nil); !errors.Is(err, ErrMissingTarget) || !strings.Contains(err.Error(), "write") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := f.Edit(t.Context(), "../x.go", Change{Old: "a", New: "b"}, nil); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("outside root: %v", err)
	}
}

func TestWrite(t *testing.T) {
	root := newRoot(t)
	f := NewFiles(root)
	r, err := f.Write(t.Context(), "deep/dir/new.txt", "a\nb\n", WriteOptions{}, nil)
	if err != nil || !r.Created || r.Lines != 2 {
		t.Fatalf("create: %+v, %v", r, err)
	}
	path := filepath.Join(root.Dir(), "deep/dir/new.txt")
	os.WriteFile(path, []byte("\uFEFFx\r\ny\r\n"), 0o600)
	os.Chmod(path, 0o600)
	if _, err := f.Write(t.Context(), "deep/dir/new.txt", "p\nq\n", WriteOptions{KeepStyle: true}, nil); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, path)); got != "\uFEFFp\r\nq\r\n" {
		t.Errorf("KeepStyle write = %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if _, err := f.Write(t.Context(), "deep/dir/new.txt", "p\nq\n", WriteOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, path)); got != "p\nq\n" {
		t.Errorf("plain write = %q", got)
	}
	if _, err := f.Write(t.Context(), "../escape.txt", "x", WriteOptions{}, nil); err == nil {
		t.Error("write outside the root accepted")
	}
	var seen Seen
	seen.Saw("deep/dir/new.txt", []byte("old"))
	if _, err := f.Write(t.Context(), "deep/dir/new.txt", "z", WriteOptions{}, &seen); !errors.Is(err, ErrStale) {
		t.Errorf("write over unseen change: %v", err)
	}
}

// Fifty goroutines edit one file through one Files: every edit lands.
func TestConcurrentEditsLoseNone(t *testing.T) {
	root := newRoot(t)
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "func f%02d() int {\n\treturn %d\n}\n\n", i, i)
	}
	path := filepath.Join(root.Dir(), "p.go")
	os.WriteFile(path, []byte(b.String()), 0o644)
	f := NewFiles(root)
	var seen Seen
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			old := fmt.Sprintf("func f%02d() int {\n\treturn %d\n}", i, i)
			nw := fmt.Sprintf("func f%02d() int {\n\treturn %d * 2\n}", i, i)
			if _, err := f.Edit(t.Context(), "p.go", Change{Old: old, New: nw}, &seen); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := string(mustRead(t, path))
	for i := 0; i < 50; i++ {
		if !strings.Contains(got, fmt.Sprintf("func f%02d() int {\n\treturn %d * 2\n}", i, i)) {
			t.Errorf("edit %d lost", i)
		}
	}
	if names := workFiles(t, root.Dir()); len(names) != 1 {
		t.Errorf("directory holds %v, want only p.go (no temp files)", names)
	}
}

// old_string that starts with indentation is not found inside a deeper
// line's indentation: there it would name another line (here, in g), while
// the line meant (in f) differs only by trailing blanks.
func TestExactMatchDoesNotStartInsideIndentation(t *testing.T) {
	body := "def f(x):\n    if x:\n        return 1  \n    return 0\n\n\ndef g(x, y):\n    if x:\n        if y:\n            return 1\n    return 0\n"
	got := apply(t, body, Change{Old: "        return 1\n    return 0", New: "        return 2\n    return 0"})
	want := "def f(x):\n    if x:\n        return 2\n    return 0\n\n\ndef g(x, y):\n    if x:\n        if y:\n            return 1\n    return 0\n"
	if got != want {
		t.Fatalf("edit landed elsewhere:\n%s", got)
	}
	// Mid-line text that starts with a blank after a non-blank is still
	// found: " + 1" in "x = a + 1".
	if got := apply(t, "x = a + 1\n", Change{Old: " + 1", New: " + 2"}); got != "x = a + 2\n" {
		t.Errorf("mid-line match: %q", got)
	}
}

// FuzzApply: Apply never panics; an old_string that occurs once, as whole
// blank runs, is replaced as plain text; a CRLF file stays CRLF.
func FuzzApply(f *testing.F) {
	f.Add("func f() {\n\treturn 1\n}\n", "\treturn 1\n", "\treturn 2\n")
	f.Add("a\r\nb  \r\n\tc\r\n", "b\nc", "b\nd\n")
	f.Add("if x:\n    y = 1\n    z = 2\n", "  y  =  1\n\tz = 2", "y = 3")
	f.Add("def f():\n    return \"a\"\n", `    return \"a\"`, `    return \"b\"\n`)
	f.Add("x\n\n\ny\nz\n", "\n\ny\nz\n\n", "\n\ny\n")
	f.Fuzz(func(t *testing.T, body, old, nw string) {
		a, err := Apply([]byte(body), "f", Change{Old: old, New: nw})
		if err != nil {
			return
		}
		ft := textfmt.DecodeText([]byte(body))
		o, n := textfmt.ToLF(old), textfmt.ToLF(nw)
		if strings.Count(ft.Body, o) == 1 && !strings.Contains(o, "\r") {
			i := strings.Index(ft.Body, o)
			inRun := isSpaceByte(o[0]) && i > 0 && isSpaceByte(ft.Body[i-1]) ||
				isSpaceByte(o[len(o)-1]) && i+len(o) < len(ft.Body) && isSpaceByte(ft.Body[i+len(o)])
			want := ft.Body[:i] + n + ft.Body[i+len(o):]
			if strings.HasSuffix(ft.Body, "\n") && !strings.HasSuffix(want, "\n") && want != "" {
				want += "\n"
			}
			if !inRun && string(a.Data) != string(ft.Encode(want)) {
				t.Fatalf("unique exact old_string not replaced as text:\n got %q\nwant %q", a.Data, ft.Encode(want))
			}
		}
		if ft.CRLF && strings.Contains(strings.ReplaceAll(string(a.Data), "\r\n", ""), "\n") {
			t.Fatalf("CRLF file got a bare LF: %q", a.Data)
		}
	})
}

// Large blocks: a 600-line region of server.go, re-indented with spaces
// and changed on many lines, lands as intended; a not-found one names its
// true range. (Their speed is measured in BenchmarkLargeBlock, not here.)
func TestLargeBlocks(t *testing.T) {
	body := readGo(t, "net/http/server.go")
	lines := strings.Split(body, "\n")
	block := strings.Join(lines[1000:1600], "\n")
	changed := strings.ReplaceAll(block, ")\n", ") //x\n")
	if strings.Count(changed, "//x") < 50 {
		t.Fatal("premise: many lines end with )")
	}
	got := apply(t, body, Change{Old: strings.ReplaceAll(block, "\t", "    "), New: strings.ReplaceAll(changed, "\t", "    ")})
	if want := strings.Replace(body, block, changed, 1); got != want {
		t.Fatalf("600-line re-indented edit:\n%s", firstDiff(want, got))
	}
	// The first line misremembered (no anchor): refused, pointing at the
	// block.
	if !strings.Contains(lines[1000], "err") {
		t.Fatal("premise: line 1001 of server.go holds the first \"err\"")
	}
	err := refused(t, body, Change{Old: strings.Replace(block, "err", "er", 1), New: "x"}, ErrNotFound)
	if !strings.Contains(err.Error(), "f:1001-1600") {
		t.Errorf("not-found names another range: %v", err)
	}
}

// The snippet shows the changed region with numbered context, and elides
// the middle of a long one: every line it shows is the file's line of that
// number.
func TestSnippetBounded(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	check := func(first, last, wantShown int) {
		t.Helper()
		s := snippet(body, first, last)
		shown := 0
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			var n int
			if _, err := fmt.Sscanf(strings.TrimSpace(l), "%d", &n); err != nil {
				if !strings.Contains(l, "lines)") {
					t.Errorf("odd snippet line %q", l)
				}
				continue
			}
			shown++
			if want := fmt.Sprintf("%d\t%s", n, lines[n-1]); l != want {
				t.Errorf("snippet line %q, want %q", l, want)
			}
		}
		if shown != wantShown {
			t.Errorf("snippet(%d, %d) shows %d lines, want %d:\n%s", first, last, shown, wantShown, s)
		}
	}
	check(100, 102, 9)
	check(100, 99, 6) // a deletion: context only
	check(50, 150, snippetMax)
	check(1, 1, 4)
	check(len(lines), len(lines), 4)
}

// workFiles lists dir's entries except cchub's own state directory (where
// the edit locks are kept).
func workFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.Name() != workspace.StateDir {
			names = append(names, e.Name())
		}
	}
	return names
}
