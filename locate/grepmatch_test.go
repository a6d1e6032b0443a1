package locate

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cchub/workspace/wstest"
)

// referenceLines is the definition the matcher must agree with: the lines
// (1-based) on which Go's regexp, run on each line alone, finds a match.
func referenceLines(t testing.TB, pattern string, literal, ignoreCase bool, text []byte) ([]int, bool) {
	if literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, false
	}
	var out []int
	if len(text) == 0 {
		return out, true
	}
	lines := strings.Split(string(text), "\n")
	if strings.HasSuffix(string(text), "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if re.MatchString(l) {
			out = append(out, i+1)
		}
	}
	return out, true
}

func matcherLines(m *lineMatcher, text []byte) []int {
	var out []int
	line, counted := 1, 0
	m.eachLine(text, func(start, end int) bool {
		line += strings.Count(string(text[counted:start]), "\n")
		counted = start
		out = append(out, line)
		return true
	})
	return out
}

func TestGrepMatcherAgreesWithRegexpPerLine(t *testing.T) {
	text := []byte(strings.Join([]string{
		"package main",
		"",
		"func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {",
		"\tif err := foo(); err != nil { return err }",
		"// Content-Type: text/plain; CONTENT-TYPE again",
		"x_test y_test\tnot_a_testing",
		"KELVIN \u212a and long \u017f (long s)",
		"tabs\tand\r",
		"trailing spaces   ",
		"caf\u00e9 CAF\u00c9 na\u00efve",
		"\xff\xfe invalid bytes \xc3",
		"2024-01-31 and 1999-12-31T23:59",
		"aaa",
		"last line without newline",
	}, "\n"))
	patterns := []struct {
		pat               string
		literal, foldCase bool
	}{
		{pat: "func"},
		{pat: "func "},
		{pat: `func \(\w+ \*\w+\) Serve`},
		{pat: `\w+_test\b`},
		{pat: "content-type", foldCase: true},
		{pat: "Content-Type"},
		{pat: "^$"},
		{pat: "^"},
		{pat: "$"},
		{pat: `^\s*$`},
		{pat: `\s+$`},
		{pat: `^func`},
		{pat: `\bx`},
		{pat: `\Bx`},
		{pat: `\Aaaa\z`},
		{pat: `a*`},
		{pat: `[^a-z]`},
		{pat: `.`},
		{pat: `.{40,}`},
		{pat: `\d{4}-\d{2}-\d{2}`},
		{pat: `[A-Z]{3}[0-9]{3}`},
		{pat: "k", foldCase: true},      // folds to the Kelvin sign
		{pat: "LONG S", foldCase: true}, // s folds to ſ
		{pat: "café", foldCase: true},
		{pat: "CAFÉ"},
		{pat: "\ufffd"},      // matches invalid bytes
		{pat: "invalid \\S"}, // the literal stops before a class
		{pat: "err != nil { return", literal: true},
		{pat: "foo()", literal: true},
		{pat: "*.go", literal: true},
		{pat: "(?i)Server"},
		{pat: "(?i:serve)HTTP"},
		{pat: "t(?i:ABS)"},
		{pat: "err|Server"},
		{pat: "(err|Server)+x?"},
		{pat: `\r$`},
		{pat: `and\r`},
		{pat: `[\s\S]+`},
		{pat: `x_test y`},
		{pat: `^last.*newline$`},
	}
	for _, p := range patterns {
		want, ok := referenceLines(t, p.pat, p.literal, p.foldCase, text)
		if !ok {
			t.Fatalf("bad test pattern %q", p.pat)
		}
		m, err := compileMatcher(p.pat, p.literal, p.foldCase)
		if err != nil {
			t.Errorf("compileMatcher(%q): %v", p.pat, err)
			continue
		}
		if got := matcherLines(m, text); !slices.Equal(got, want) {
			t.Errorf("pattern %q (literal=%v, ignoreCase=%v): lines %v, want %v (literal prefilter %q)", p.pat, p.literal, p.foldCase, got, want, m.lit)
		}
	}
}

func TestGrepMatcherRefusesNewlines(t *testing.T) {
	for _, p := range []string{`a\nb`, `[\n]`, "x\ny"} {
		if _, err := compileMatcher(p, false, false); err == nil || !strings.Contains(err.Error(), "newline") {
			t.Errorf("compileMatcher(%q) = %v, want an error about newlines", p, err)
		}
	}
}

func TestGrepMatcherPrefilterChoice(t *testing.T) {
	for _, c := range []struct {
		pat      string
		fold     bool
		wantLit  string
		wantFold bool
		exact    bool
	}{
		{pat: "ErrAbortHandler", wantLit: "ErrAbortHandler", exact: true},
		{pat: `func \(\w+ \*\w+\) Serve`, wantLit: ") Serve"},
		{pat: `\w+_test\b`, wantLit: "_test"},
		{pat: "content-type", fold: true, wantLit: "content-type", wantFold: true, exact: true},
		{pat: "Kelvin", fold: true, wantLit: "elvin", wantFold: true}, // k is not ASCII-foldable
		{pat: `[A-Z]{3}[0-9]{3}`, wantLit: ""},
	} {
		m, err := compileMatcher(c.pat, false, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.lit) != c.wantLit || (m.lit != nil && m.fold != c.wantFold) || m.exact != c.exact {
			t.Errorf("%q: literal %q fold=%v exact=%v, want %q fold=%v exact=%v", c.pat, m.lit, m.fold, m.exact, c.wantLit, c.wantFold, c.exact)
		}
	}
}

// The DFA restarts when its cache fills; a pattern with many states must
// still agree with regexp.
func TestGrepMatcherDFACacheReset(t *testing.T) {
	// "an a 12 characters before a c" needs 2^13 states, more than the cache holds.
	pat := `a[ab]{12}c`
	var b strings.Builder
	x := uint32(1)
	for i := 0; i < 4000; i++ {
		for j := 0; j < 40; j++ {
			x = x*1664525 + 1013904223
			b.WriteByte("ab"[x>>31])
		}
		if i%3 == 0 {
			b.WriteString("c")
		}
		b.WriteByte('\n')
	}
	text := []byte(b.String())
	want, _ := referenceLines(t, pat, false, false, text)
	m, err := compileMatcher(pat, false, false)
	if err != nil {
		t.Fatal(err)
	}
	m.lit = nil // no prefilter: the DFA sees every byte
	if got := matcherLines(m, text); !slices.Equal(got, want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	if m.dfa.gen < 2 {
		t.Errorf("the cache never reset (gen %d); the test did not reach its point", m.dfa.gen)
	}
}

// On real Go sources the matcher agrees with regexp line for line.
func TestGrepMatcherOnGOROOT(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(wstest.GoSrc(t), "net", "http", "*.go"))
	wstest.RequirePeer(t, "Go's source tree: $(go env GOROOT)/src/net/http", len(files) > 0)
	pats := []string{`func \(\w+ \*\w+\) Serve`, `\w+_test\b`, `(?i)content-type`, `[A-Z]{3}[0-9]{3}`, `^\s*//`, `\bErr[A-Z]\w*`}
	for _, f := range files[:min(len(files), 40)] {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pats {
			want, _ := referenceLines(t, p, false, false, text)
			m, _ := compileMatcher(p, false, false)
			if got := matcherLines(m, text); !slices.Equal(got, want) {
				t.Errorf("%s, pattern %q: lines %v, want %v", filepath.Base(f), p, got, want)
			}
		}
	}
}

func FuzzGrepMatcher(f *testing.F) {
	f.Add(`func \(\w+\)`, []byte("func (x)\nfunc(y)\n"), false, false)
	f.Add(`^$`, []byte("\n\na\n"), false, false)
	f.Add(`k`, []byte("\u212a\nK\n"), false, true)
	f.Add(`a.b`, []byte("a.b\naxb"), true, false)
	f.Add(`\bfoo\B`, []byte("foox foo\n"), false, true)
	f.Add(`[A-Z]{2}\d`, []byte("abcdefghAB1\nabcdefgAB2é\nabcdefghiAB\n3 AB\u00e94 xyzXYZ9"), false, false)
	f.Fuzz(func(t *testing.T, pattern string, text []byte, literal, ignoreCase bool) {
		if strings.Contains(pattern, "\n") || len(pattern) > 64 {
			return
		}
		want, ok := referenceLines(t, pattern, literal, ignoreCase, text)
		if !ok {
			return
		}
		m, err := compileMatcher(pattern, literal, ignoreCase)
		if err != nil {
			return // e.g. `[\n]`: refused with a message
		}
		if got := matcherLines(m, text); !slices.Equal(got, want) {
			t.Fatalf("pattern %q literal=%v ignoreCase=%v on %q: lines %v, want %v", pattern, literal, ignoreCase, text, got, want)
		}
	})
}

// A pattern with no literal and no empty-width test skips the bytes that
// start no match eight at a time: a match that starts at any offset of a
// group of eight, at the buffer's end, after a non-ASCII character, or
// across a line break that ends a partial match is found all the same,
// and the skip is used only where most bytes start no match.
func TestGrepMatcherSkipsIdleBytesWhereAMatchCanStartAnywhere(t *testing.T) {
	var b strings.Builder
	for pad := 0; pad < 20; pad++ {
		b.WriteString(strings.Repeat("x", pad) + "ABC123\n")
		b.WriteString(strings.Repeat("y", pad) + "é" + "ABC124 tail\n")
		b.WriteString(strings.Repeat("z", pad) + "AB\nC125\n") // cut by a line break
		b.WriteString(strings.Repeat("w", pad) + "ABCD12 ABC\n")
	}
	b.WriteString("qqqqqqqqqqqqqXYZ999") // at the very end, no newline
	text := []byte(b.String())
	for _, c := range []struct {
		pat  string
		skip bool
	}{
		{`[A-Z]{3}[0-9]{3}`, true},
		{`[A-Z]{3}\d+`, true},
		{`\w+\d`, true},               // \w leaves on 63 of 128 bytes: still most stay
		{`.{3}\d`, false},             // any byte leaves
		{`\b[A-Z]{3}[0-9]{3}`, false}, // an empty-width test: what came before matters
	} {
		want, _ := referenceLines(t, c.pat, false, false, text)
		m := mustMatcher(t, c.pat)
		if m.lit != nil {
			t.Fatalf("%s: has a literal %q; the test needs the DFA alone", c.pat, m.lit)
		}
		if (m.dfa.idle != nil) != c.skip {
			t.Errorf("%s: skips idle bytes: %v, want %v", c.pat, m.dfa.idle != nil, c.skip)
		}
		if got := matcherLines(m, text); !slices.Equal(got, want) {
			t.Errorf("%s: lines %v, want %v", c.pat, got, want)
		}
	}
}

// Scanning for both cases of a letter must not rescan the buffer for each
// candidate: one rare case far away used to make this quadratic.
func TestGrepMatcherFoldScanIsLinear(t *testing.T) {
	text := []byte(strings.Repeat("z\n", 1<<20) + "XZ\n")
	m, err := compileMatcher("xz", false, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.lit[m.rare] != 'z' {
		t.Fatalf("scanning for %q, want z", m.lit[m.rare])
	}
	start := time.Now()
	got := matcherLines(m, text)
	if !slices.Equal(got, []int{1<<20 + 1}) {
		t.Errorf("lines %v", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// What a token index is asked for a pattern: the literals every match
// holds, or, for a pattern of a few strings, each string's.
func TestGrepMatcherTellsATokenIndexWhatMatchesHold(t *testing.T) {
	for _, c := range []struct {
		pattern    string
		ignoreCase bool
		want       string
	}{
		{"ErrAbortHandler", false, "[[ErrAbortHandler]]"},
		{`func \(\w+ \*\w+\) Serve`, false, "[[) Serve func (]]"}, // rarest first
		{"Content-Type", true, "[[content-type]]"},
		{"fsencode|fsdecode", false, "[[fsencode] [fsdecode]]"},
		{`(Read|Write)Deadline\(`, false, "[[ReadDeadline(] [WriteDeadline(]]"},
		{"^(foo|bar)$", true, "[[foo] [bar]]"},
		{"foo|ab", false, "[]"},            // ab: too short for a filter
		{`\w+_test\b`, false, "[[_test]]"}, // no set: what every match holds
		{`[A-Z]{3}[0-9]{3}`, false, "[]"},
		{"a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|qqqq", false, "[]"}, // over maxAlternatives
	} {
		m, err := compileMatcher(c.pattern, false, c.ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, alt := range m.required() {
			var lits []string
			for _, l := range alt {
				lits = append(lits, string(l))
			}
			got = append(got, "["+strings.Join(lits, " ")+"]")
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != c.want {
			t.Errorf("%q (ignore case %v): %s, want %s", c.pattern, c.ignoreCase, s, c.want)
		}
	}
}
