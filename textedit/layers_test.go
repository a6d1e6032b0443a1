package textedit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readCopy reads a copy of real source kept in testdata/. The tests here
// assert on exact method bodies, which the host's own Python standard
// library changes from one version to the next.
func readCopy(tb testing.TB, name string) string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// The layers in the order of the chain, for messages.
var layerNames = []string{"exact", "trailing-trimmed", "block-anchors", "collapsed-whitespace", "indent-flexible", "escape-normalized", "trimmed-boundary", "context-aware"}

// decidingLayer is the index in layers of the layer whose candidates
// decide, or -1.
func decidingLayer(body, old string) (int, []candidate) {
	lines := splitLines(body)
	for i, layer := range layers {
		if cs := layer(unbounded(), body, lines, old); len(cs) > 0 {
			return i, cs
		}
	}
	return -1, nil
}

// rescue is a near-miss a layer must take: old and new as the model sent
// them, and from/to, the true text and the intended text, whose plain
// replacement in the file is the expected result.
type rescue struct {
	name     string
	body     string
	old, new string
	from, to string
	layer    string
}

func checkRescue(t *testing.T, r rescue) {
	t.Helper()
	at := mustOnce(t, r.body, r.from)
	want := r.body[:at] + r.to + r.body[at+len(r.from):]
	li, cs := decidingLayer(r.body, strings.ReplaceAll(r.old, "\r\n", "\n")) // as Apply sees it (textfmt.ToLF)
	if li < 0 {
		t.Errorf("%s: no layer found old_string", r.name)
		return
	}
	if layerNames[li] != r.layer {
		t.Errorf("%s: decided by %s, want %s", r.name, layerNames[li], r.layer)
	}
	if len(cs) != 1 {
		t.Errorf("%s: %d candidates", r.name, len(cs))
	}
	a, err := Apply([]byte(r.body), "f", Change{Old: r.old, New: r.new})
	if err != nil {
		t.Errorf("%s: %v", r.name, err)
		return
	}
	if string(a.Data) != want {
		t.Errorf("%s: result is not the intended edit; changed region:\n%s", r.name, a.Snippet)
	}
	if want := lineOf(r.body, at); a.FirstLine != want {
		t.Errorf("%s: first changed line %d, want %d", r.name, a.FirstLine, want)
	}
}

func jsonEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s)
}

func TestLayerRescues(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	stringsGo := readGo(t, "strings/strings.go")
	textwrap := readPy(t, "textwrap.py")
	argparse := readCopy(t, "argparse_excerpt.py")

	hijacked := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	hijacked2 := strings.Replace(hijacked, "return c.hijackedv", "return c.hijackedv && c.rwc != nil", 1)
	split := "    def _split_chunks(self, text):\n        text = self._munge_whitespace(text)\n        return self._split(text)\n"
	split2 := strings.Replace(split, "return self._split(text)", "return self._split(text.strip())", 1)
	count := "    def __call__(self, parser, namespace, values, option_string=None):\n        count = getattr(namespace, self.dest, None)\n        if count is None:\n            count = 0\n        setattr(namespace, self.dest, count + 1)\n"
	count2 := strings.Replace(count, "count + 1)", "count + 2)", 1)
	mul := "\thi, lo := bits.Mul(uint(len(s)), uint(count))\n\tif hi > 0 || lo > uint(maxInt) {\n"
	mul2 := strings.Replace(mul, "if hi > 0", "if hi != 0", 1)

	for _, r := range []rescue{
		{name: "exact bytes", body: server, old: hijacked, new: hijacked2, from: hijacked, to: hijacked2, layer: "exact"},
		{
			name: "trailing blanks and stray CR", body: textwrap,
			old: strings.ReplaceAll(split, "\n", " \t\r\n"), new: strings.ReplaceAll(split2, "\n", " \r\n"),
			from: split, to: split2, layer: "trailing-trimmed",
		},
		{
			name: "one token misremembered in a middle line", body: server,
			old:  strings.Replace(hijacked, "defer c.mu.Unlock()", "defer c.mu.unlock()", 1),
			new:  strings.Replace(hijacked2, "defer c.mu.Unlock()", "defer c.mu.unlock()", 1),
			from: hijacked, to: hijacked2, layer: "block-anchors",
		},
		{
			name: "whitespace runs inside lines", body: stringsGo,
			old:  strings.ReplaceAll(strings.ReplaceAll(mul, ", ", ",  "), " := ", "  :=  "),
			new:  strings.ReplaceAll(strings.ReplaceAll(mul2, ", ", ",  "), " := ", "  :=  "),
			from: mul, to: mul2, layer: "collapsed-whitespace",
		},
		{
			// Two lines: too short for block anchors; the collapsed layer
			// finds them, and new_string's lines take the file's tabs.
			name: "tabs as spaces, two lines", body: stringsGo,
			old: strings.ReplaceAll(mul, "\t", "    "), new: strings.ReplaceAll(mul2, "\t", "    ") + "        // overflow\n",
			from: mul, to: mul2 + "\t\t// overflow\n", layer: "collapsed-whitespace",
		},
		{
			name: "block shifted left, Python", body: textwrap,
			old: dedentBy(split, "    "), new: dedentBy(split2, "    "),
			from: split, to: split2, layer: "block-anchors",
		},
		{
			name: "JSON-escaped once", body: argparse,
			old: jsonEscape(count), new: jsonEscape(count2),
			from: count, to: count2, layer: "escape-normalized",
		},
		{
			name: "escaped quotes only", body: textwrap,
			old:   `        raise ValueError(\"placeholder too large for max width\")`,
			new:   `        raise ValueError(\"placeholder too large for width\")`,
			from:  `        raise ValueError("placeholder too large for max width")`,
			to:    `        raise ValueError("placeholder too large for width")`,
			layer: "escape-normalized",
		},
		{
			name: "blank lines around", body: textwrap,
			old: "\n\n" + split + "\n\n", new: "\n\n" + split2 + "\n\n",
			from: split, to: split2, layer: "collapsed-whitespace",
		},
		{
			// The last statement is quite different (block similarity under
			// the threshold) but the lines around it are the file's.
			name: "one middle line rewritten", body: server,
			old:  strings.Replace(hijacked, "return c.hijackedv", "return c.isHijackedAfterClose()", 1),
			new:  strings.Replace(strings.Replace(hijacked, "return c.hijackedv", "return c.isHijackedAfterClose()", 1), "defer c.mu.Unlock()", "defer c.mu.Unlock() // always", 1),
			from: hijacked, to: strings.Replace(hijacked, "defer c.mu.Unlock()", "defer c.mu.Unlock() // always", 1),
			layer: "context-aware",
		},
	} {
		checkRescue(t, r)
	}
}

func dedentBy(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n")
}

// The indentation-flexible and trimmed-boundary layers are reached in the
// chain only through the escape layer or when an earlier layer is
// ambiguous: the collapsed-whitespace layer takes what they would. Their
// own rules are checked here directly.
func TestIndentFlexibleLayer(t *testing.T) {
	body := readPy(t, "textwrap.py")
	lines := splitLines(body)
	split := "    def _split_chunks(self, text):\n        text = self._munge_whitespace(text)\n        return self._split(text)"
	// Tabs for spaces and the whole block shifted keep the shape: found.
	for _, old := range []string{
		strings.ReplaceAll(split, "    ", "\t"),
		"  " + strings.ReplaceAll(split, "\n", "\n  "),
		dedentBy(split, "    "),
	} {
		if cs := indentFlexibleMatches(unbounded(), body, lines, old); len(cs) != 1 || body[cs[0].start:cs[0].end] != split {
			t.Errorf("indent-flexible did not find %q", old)
		}
	}
	// The same lines in another shape (all at one level) are not the block.
	flat := "def _split_chunks(self, text):\ntext = self._munge_whitespace(text)\nreturn self._split(text)"
	if cs := indentFlexibleMatches(unbounded(), body, lines, flat); len(cs) != 0 {
		t.Errorf("indent-flexible took a block of another shape")
	}
	// Through the escape layer, an escaped and re-indented block is found
	// by it, and the edit lands with the file's indentation.
	old := jsonEscape(strings.ReplaceAll(split, "    ", "\t"))
	nw := jsonEscape(strings.ReplaceAll(strings.Replace(split, "self._split(text)", "self._split(text) or []", 1), "    ", "\t"))
	got := apply(t, body, Change{Old: old, New: nw})
	if want := strings.Replace(body, split, strings.Replace(split, "self._split(text)", "self._split(text) or []", 1), 1); got != want {
		t.Error("escaped, re-indented edit is not the intended one")
	}
}

func TestTrimmedBoundaryLayer(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	lines := splitLines(body)
	cut := "func Cut(s, sep string) (before, after string, found bool) {\n\treturn stringslite.Cut(s, sep)\n}"
	cs := trimmedBoundaryMatches(unbounded(), body, lines, "\n  \n"+cut+"\n\n\n")
	if len(cs) != 1 || body[cs[0].start:cs[0].end] != cut {
		t.Fatalf("trimmed-boundary did not find the block")
	}
	if got := cs[0].fixNew("\n  \nX\n\n\n"); got != "X" {
		t.Errorf("new_string's boundary not trimmed the same way: %q", got)
	}
	// Only blank lines: nothing to look for.
	if cs := trimmedBoundaryMatches(unbounded(), body, lines, "\n\n  \n"); cs != nil {
		t.Error("blank old_string matched")
	}
	// Without blank boundary lines, the layer has nothing to add.
	if cs := trimmedBoundaryMatches(unbounded(), body, lines, cut); cs != nil {
		t.Error("trimmed-boundary matched an old_string with no blank boundary")
	}
}

// Near-misses that each layer must not take, on real files. Each must be
// refused by the whole chain, with the file untouched.
func TestLayerRefusals(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	stringsGo := readGo(t, "strings/strings.go")
	argparse := readCopy(t, "argparse_excerpt.py")
	lines := splitLines(server)
	hijacked := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	mustOnce(t, server, hijacked)

	// exact: two places.
	refused(t, stringsGo, Change{Old: "\treturn -1\n", New: "\treturn -2\n"}, ErrAmbiguous)

	// trailing-trimmed forgives blanks at the end of lines, not tokens.
	tok := strings.Replace(hijacked, "c.mu.Lock()", "c.mu.RLock()", 1) + "  "
	if cs := trailingTrimmedMatches(unbounded(), server, lines, tok); cs != nil {
		t.Error("trailing-trimmed took a changed token")
	}
	// ... and two places equal but for trailing blanks are two places.
	refused(t, stringsGo, Change{Old: "\treturn -1  \n", New: "\treturn -2\n"}, ErrAmbiguous)

	// block anchors: first and last line equal, body another function's
	// (see TestBlockAnchorThreshold for the threshold itself).
	other := "func (c *conn) hijacked() bool {\n\tc.mu.RLock()\n\th := c.hijackedv\n\tc.mu.RUnlock()\n\treturn h\n}"
	refused(t, server, Change{Old: other, New: "func (c *conn) hijacked() bool { return false }"}, ErrNotFound)

	// collapsed whitespace joins runs of blanks, it does not split or join
	// tokens.
	refused(t, stringsGo, Change{Old: "hi, lo := bits.Mul(uint(len(s)),uint(count))", New: "x"}, ErrNotFound)
	refused(t, stringsGo, Change{Old: "h i, lo := bits.Mul(uint(len(s)), uint(count))", New: "x"}, ErrNotFound)
	// ... and text that collapses to several places is ambiguous.
	refused(t, stringsGo, Change{Old: "return  -1", New: "return -2"}, ErrAmbiguous)

	// escape-normalized: the unescaped text must be in the file.
	refused(t, argparse, Change{Old: `parser.exit(status=\"bad\")`, New: `parser.exit()`}, ErrNotFound)

	// context-aware: fewer than half of the middle lines equal.
	half := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.unlockAll()\n\treturn c.isHijackedAfterClose()\n}"
	refused(t, server, Change{Old: half, New: "x"}, ErrNotFound)
	// ... or another number of lines.
	longer := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tc.checkClosedAndLogTheState()\n\tc.recordTheHijackEventForTracing()\n\treturn c.isHijackedAfterClose()\n}"
	if cs := contextAwareMatches(unbounded(), server, lines, longer); cs != nil {
		t.Error("context-aware took a block of another length")
	}
	refused(t, server, Change{Old: longer, New: "x"}, ErrNotFound)
}

// TestBlockAnchorThreshold justifies blockSimilarity = 0.85 on argparse.py's
// Action classes and net/http/server.go.
func TestBlockAnchorThreshold(t *testing.T) {
	argparse := readCopy(t, "argparse_excerpt.py")
	server := readGo(t, "net/http/server.go")
	apLines, svLines := splitLines(argparse), splitLines(server)

	// Rescue: _CountAction.__call__ with one, then two, tokens
	// misremembered in middle lines. Its first line is shared by ten
	// __call__ methods; its last line anchors it.
	count := "    def __call__(self, parser, namespace, values, option_string=None):\n        count = getattr(namespace, self.dest, None)\n        if count is None:\n            count = 0\n        setattr(namespace, self.dest, count + 1)\n"
	mustOnce(t, argparse, count)
	for _, bad := range []struct{ from, to string }{
		{"self.dest, None)\n        if", "self.dest, 0)\n        if"},
		{"if count is None:\n            count = 0", "if count == None:\n            count = 1"},
	} {
		old := strings.Replace(count, bad.from, bad.to, 1)
		sim := similarity(joinKeys(strings.Split(count, "\n")[1:4]), joinKeys(strings.Split(old, "\n")[1:4]))
		t.Logf("misremembered %q -> %q: middle similarity %.2f", bad.from, bad.to, sim)
		if sim < blockSimilarity {
			t.Errorf("a small slip falls under the threshold (%.2f)", sim)
		}
		nw := strings.Replace(old, "count + 1)", "count + 2)", 1)
		got := apply(t, argparse, Change{Old: old, New: nw})
		// The lines the model misremembered keep the file's text; only
		// the change it made lands.
		if want := strings.Replace(argparse, count, strings.Replace(count, "count + 1)", "count + 2)", 1), 1); got != want {
			t.Errorf("rescue of %q is not the intended edit", bad.to)
		}
	}

	// Refusal: hijacked() with another function's body. Same first and
	// last line, about the same size; the middle is someone else's.
	other := "func (c *conn) hijacked() bool {\n\tc.mu.RLock()\n\th := c.hijackedv\n\tc.mu.RUnlock()\n\treturn h\n}"
	real := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	sim := similarity(joinKeys(strings.Split(real, "\n")[1:4]), joinKeys(strings.Split(other, "\n")[1:5]))
	t.Logf("another body under the same anchors: middle similarity %.2f", sim)
	if cs := blockAnchorMatchesAt(unbounded(), server, svLines, other, blockSimilarity); cs != nil {
		t.Errorf("threshold %.2f took another function's body", blockSimilarity)
	}
	// What a loose threshold does: takes hijacked() on the strength of its
	// signature and closing brace, and the edit would replace its body.
	loose := blockAnchorMatchesAt(unbounded(), server, svLines, other, 0.3)
	if len(loose) != 1 || server[loose[0].start:loose[0].end] != real {
		t.Fatalf("premise: threshold 0.3 should take hijacked() (got %d candidates)", len(loose))
	}
	t.Logf("threshold 0.3 would take lines %d-%d (%s)", lineAt(server, loose[0].start), lineAt(server, loose[0].end), "func (c *conn) hijacked")

	// The same on argparse: _CountAction.__call__ remembered with
	// _AppendAction's body (same first line; its last line taken from
	// _CountAction). 0.3 accepts it, 0.85 does not.
	mixed := "    def __call__(self, parser, namespace, values, option_string=None):\n        items = getattr(namespace, self.dest, None)\n        items = _copy_items(items)\n        items.append(values)\n        setattr(namespace, self.dest, count + 1)\n"
	if cs := blockAnchorMatchesAt(unbounded(), argparse, apLines, mixed, blockSimilarity); cs != nil {
		t.Error("0.85 took a body of another method")
	}
	if cs := blockAnchorMatchesAt(unbounded(), argparse, apLines, mixed, 0.3); len(cs) != 1 || argparse[cs[0].start:cs[0].end] != count {
		t.Errorf("premise: 0.3 takes _CountAction.__call__ for another body (got %d)", len(cs))
	}
	refused(t, argparse, Change{Old: mixed, New: "    pass\n"}, ErrNotFound)

	// A near tie is ambiguous, not a guess: _AppendAction.__call__ with
	// "values" misremembered is almost as like _ExtendAction's
	// (items.extend(values)) and _AppendConstAction's.
	appendCall := "    def __call__(self, parser, namespace, values, option_string=None):\n        items = getattr(namespace, self.dest, None)\n        items = _copy_items(items)\n        items.append(values)\n        setattr(namespace, self.dest, items)\n"
	mustOnce(t, argparse, appendCall)
	slip := strings.Replace(appendCall, "items.append(values)", "items.append(value)", 1)
	cs := blockAnchorMatchesAt(unbounded(), argparse, apLines, slip, blockSimilarity)
	if len(cs) != 3 {
		t.Fatalf("near tie: %d candidates, want 3 (_AppendAction, _AppendConstAction, _ExtendAction)", len(cs))
	}
	err := refused(t, argparse, Change{Old: slip, New: strings.Replace(slip, "items)\n", "items or [])\n", 1)}, ErrAmbiguous)
	if !strings.Contains(err.Error(), "Found 3 matches") {
		t.Errorf("near tie message: %v", err)
	}
}

// A model that misremembers a line and leaves it alone does not write its
// version into the file; one that rewrites that line gets its rewrite.
func TestMisrememberedLinesKeepFileText(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	real := "func (c *conn) hijacked() bool {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.hijackedv\n}"
	mustOnce(t, server, real)
	old := strings.Replace(real, "defer c.mu.Unlock()", "defer c.mu.unlock()", 1)
	got := apply(t, server, Change{Old: old, New: strings.Replace(old, "return c.hijackedv", "return c.hijackedv // sure", 1)})
	if want := strings.Replace(server, real, strings.Replace(real, "return c.hijackedv", "return c.hijackedv // sure", 1), 1); got != want {
		t.Error("misremembered line written into the file")
	}
	got = apply(t, server, Change{Old: old, New: strings.Replace(old, "defer c.mu.unlock()", "defer c.mu.Unlock() // fixed", 1)})
	if want := strings.Replace(server, real, strings.Replace(real, "defer c.mu.Unlock()", "defer c.mu.Unlock() // fixed", 1), 1); got != want {
		t.Error("the rewrite of a misremembered line did not land")
	}
}

// Refusals leave no doubt which error they are.
func TestRefusalsWrapErrors(t *testing.T) {
	body := readGo(t, "strings/strings.go")
	for _, c := range []struct {
		ch   Change
		want error
	}{
		{Change{Old: "no such text here", New: "x"}, ErrNotFound},
		{Change{Old: "\treturn -1\n", New: "x"}, ErrAmbiguous},
		{Change{Old: "", New: "x"}, ErrEmptyOld},
		{Change{Old: "x", New: "x"}, ErrNoChange},
	} {
		_, err := Apply([]byte(body), "strings.go", c.ch)
		if !errors.Is(err, c.want) {
			t.Errorf("%q: %v, want %v", c.ch.Old, err, c.want)
		}
	}
}

func TestKeyEquals(t *testing.T) {
	for _, s := range []string{"", " ", "a", "  a  b\t c ", "\ta\r", "a  ", "ab", "a b", " a\t\tb", "é  ü", "a\fb", "\v"} {
		for _, k := range []string{"", "a", "a b", "a b c", "ab", "é ü", "a ", " a"} {
			if got, want := keyEquals(s, k), key(s) == k; got != want {
				t.Errorf("keyEquals(%q, %q) = %v, want %v", s, k, got, want)
			}
		}
	}
}

// Block anchors allow a line more or less; a line the model left out of
// old_string is not deleted by the edit, and a change to a line the file
// does not have is refused rather than guessed.
func TestBlockWithForgottenOrExtraLine(t *testing.T) {
	server := readGo(t, "net/http/server.go")
	flush := "func (c *conn) finalFlush() {\n\tif c.bufr != nil {\n\t\t// Steal the bufio.Reader (~4KB worth of memory) and its associated\n\t\t// reader for a future connection.\n\t\tputBufioReader(c.bufr)\n\t\tc.bufr = nil\n\t}\n\n\tif c.bufw != nil {\n\t\tc.bufw.Flush()\n\t\t// Steal the bufio.Writer (~4KB worth of memory) and its associated\n\t\t// writer for a future connection.\n\t\tputBufioWriter(c.bufw)\n\t\tc.bufw = nil\n\t}\n}"
	mustOnce(t, server, flush)
	forgot := strings.Replace(flush, "\t\tc.bufr = nil\n", "", 1)
	got := apply(t, server, Change{Old: forgot, New: strings.Replace(forgot, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1)})
	if want := strings.Replace(server, flush, strings.Replace(flush, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1), 1); got != want {
		t.Errorf("forgotten line:\n%s", firstDiff(want, got))
	}
	// Whatever window a layer picks, lines are lined up by content, not
	// position: a span that stops at the inner "\t}" (as long as
	// old_string, since old_string lacks a line) still gets the change on
	// the right line, and the function's "}" after it is left alone.
	cut := strings.TrimSuffix(flush, "\n}")
	rep, ok := transplant(cut, forgot, strings.Replace(forgot, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1), func() bool { return true }, formUnknown)
	if want := strings.TrimSuffix(strings.Replace(flush, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1), "\n}"); !ok || rep != want {
		t.Errorf("span cut a line short: ok=%v\n%s", ok, firstDiff(want, rep))
	}
	extra := strings.Replace(flush, "\t\tc.bufr = nil\n", "\t\tc.bufr = nil\n\t\tc.rbuf = nil\n", 1)
	err := refused(t, server, Change{Old: extra, New: strings.Replace(extra, "\t\tc.rbuf = nil\n", "", 1)}, ErrNotFound)
	if !strings.Contains(err.Error(), "read them again") {
		t.Errorf("refusal does not say what to do: %v", err)
	}
	// The same extra line left alone: the edit lands without it.
	got = apply(t, server, Change{Old: extra, New: strings.Replace(extra, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1)})
	if want := strings.Replace(server, flush, strings.Replace(flush, "c.bufw.Flush()", "c.bufw.Flush() // before reuse", 1), 1); got != want {
		t.Errorf("extra line:\n%s", firstDiff(want, got))
	}
}

// Regressions the near-miss corpus found: each was an edit at a wrong
// place or with a wrong result.
func TestLookAlikesAndDepth(t *testing.T) {
	// html/template/html.go has two entry tables, one without '&'. The
	// first with its '\'' line left out is one slip from itself and one
	// swapped line from the second: ambiguous, not the second.
	html := readGo(t, "html/template/html.go")
	table := "\t0:    \"\\uFFFD\",\n\t'\"':  \"&#34;\",\n\t'&':  \"&amp;\",\n\t'\\'': \"&#39;\",\n\t'+':  \"&#43;\",\n\t'<':  \"&lt;\","
	mustOnce(t, html, table)
	slip := strings.Replace(table, "\t'\\'': \"&#39;\",\n", "", 1)
	refused(t, html, Change{Old: slip, New: strings.Replace(slip, "\t'+':  \"&#43;\",\n", "", 1)}, ErrAmbiguous)

	// cmd/trace/main.go: the function's closing "}" must not anchor at the
	// inner "\t}" one line up (the model left out "return nil, err").
	trace := readGo(t, "cmd/trace/main.go")
	fn := "\t// trace to identify all the generation boundaries.\n\ts, c := traceviewer.SplittingTraceConsumer(100 << 20) // 100 MiB\n\tif err := generateTrace(parsed, defaultGenOpts(), c); err != nil {\n\t\treturn nil, err\n\t}\n\treturn s.Ranges, nil\n}\n"
	mustOnce(t, trace, fn)
	old := strings.Replace(fn, "\t\treturn nil, err\n", "", 1)
	got := apply(t, trace, Change{Old: old, New: strings.Replace(old, "nil\n}\n", "nil\n} // ranges\n", 1)})
	if want := strings.Replace(trace, fn, strings.Replace(fn, "nil\n}\n", "nil\n} // ranges\n", 1), 1); got != want {
		t.Errorf("closing brace:\n%s", firstDiff(want, got))
	}

	// avlint32_test.go: first and last line equal and half the middle
	// equal is not enough when the other lines are unrelated code; here
	// the block meant has a line more (left out), the one found is another.
	avl := readGo(t, "cmd/compile/internal/abt/avlint32_test.go")
	meant := "\t\tif d != kle {\n\t\t\tte.Errorf(\"d(%v) != kle(%v)\", d, kle)\n\t\t}\n\t\t// data\n\t\tif s != fmt.Sprint(g) {\n\t\t\tte.Errorf(\"s(%v) != g(%v)\", s, g)\n\t\t}"
	mustOnce(t, avl, meant)
	old = strings.Replace(meant, "\t\t\tte.Errorf(\"s(%v) != g(%v)\", s, g)\n", "", 1)
	nw := strings.Replace(old, "\t\t\tte.Errorf(\"d(%v) != kle(%v)\", d, kle)\n", "", 1)
	a, err := Apply([]byte(avl), "f", Change{Old: old, New: nw})
	if err == nil {
		if want := strings.Replace(avl, meant, strings.Replace(meant, "\t\t\tte.Errorf(\"d(%v) != kle(%v)\", d, kle)\n", "", 1), 1); string(a.Data) != want {
			t.Errorf("left-out line: edit is not the one meant:\n%s", firstDiff(want, string(a.Data)))
		}
	}
	lines := splitLines(avl)
	other := "\t\tif d != kle {\n\t\t\tte.Errorf(\"d(%v) != kle(%v)\", d, kle)\n\t\t}\n\t\tif s != fmt.Sprint(l) {\n\t\t\tunrelated()\n\t\t}"
	if cs := contextAwareMatches(unbounded(), avl, lines, other); cs != nil {
		t.Error("context-aware took a block whose other lines are unrelated")
	}
}

// unbounded is an effort for tests of one layer: the budget of an edit,
// never cancelled.
func unbounded() *effort { return newEffort(context.Background()) }
