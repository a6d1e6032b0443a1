package textedit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"cchub/syntax"
	"cchub/textfmt"
)

// The near-miss corpus: edits generated over real files (Go from GOROOT,
// Python from its stdlib) with the slips models make, each with the file
// the edit should produce, computed from the generator's own knowledge of
// the true block, never from the matcher.
//
// What "intended" means: the block's lines the model did not change stay
// byte for byte as the file has them; the changed line is the file's line
// with the model's change; inserted lines take the file's indentation; the
// file keeps its line endings. Tokens added are free of blanks, so that a
// blank-mangling slip applied to new_string leaves them whole.
//
// Forms of new_string: every case is given with new_string in three forms,
// old_string and the intended file being the same for all three.
//   - model: the model's slip applied to new_string as to old_string (the
//     corpus as it was first built);
//   - file: new_string as the file has the block, plus the model's change
//     (no slip, not escaped, no blank lines at its edges, LF line endings;
//     a line left out of old_string is left out of it too);
//   - mixed: per line, the model's form or the file's (escaped: some runs
//     of lines escaped; blank lines at the edges: on one side only).
// A form that comes out as the same text as another form is not run
// twice: the table counts it as "same".

const (
	corpusSeed    = 20240917
	corpusPerLang = 30 // files per language
	corpusPerKind = 2  // edits per file and kind
)

// Mutation kinds, in table order.
var corpusKinds = []string{
	"trailing-ws-added", "trailing-ws-removed", "indent-tabs-spaces", "indent-shifted",
	"inner-ws", "escaped", "wrong-middle-line", "line-left-out", "blank-boundary", "crlf-file", "crlf-file+indent",
	"blank-edge-midline",
}

// corpusLateKinds were added after the corpus was first built. They draw
// from a random stream of their own, so that the first kinds' cases stay
// as they were.
var corpusLateKinds = map[string]bool{"blank-edge-midline": true}

// Forms of new_string, in table order.
var corpusForms = []string{"model", "file", "mixed"}

type corpusFile struct {
	rel, language string
	lines         []string
	finalNL       bool
	keys          []string
	text          string
}

type corpusCase struct {
	kind     string
	file     string
	line     int // first line of the true block
	data     string
	old, new string
	want     string // "" for cases that must be refused
	// negative: the case is not a unique near-miss; it may only be
	// refused or applied exactly as want.
	negative bool
	form     string // of new: "model", "file" or "mixed"
	// sameAs names the form whose new_string this one equals: the case
	// is counted, not run.
	sameAs string
}

// guarded counts cases refused by the syntax guard whose intended result
// has more syntax errors than the file (the generator's change deletes a
// brace, say): refusing a forgiving edit that breaks the file is the
// guard's contract, so they are not counted among the cases.
type tally struct{ cases, intended, wrong, refused, same, guarded int }

type corpusStats struct {
	kinds    map[string]*tally // by kind/form
	forms    map[string]*tally // positive cases by form
	negForms map[string]*tally // negative cases by form
	pos, neg tally
	// failures by kind/form: positive cases not applied as intended, and
	// all wrong ones.
	failures map[string][]string
	groups   []string // of failures, in the order met
}

// corpusFiles picks the files: deterministic for a given GOROOT and Python.
func corpusFiles(tb testing.TB) []corpusFile {
	tb.Helper()
	rng := rand.New(rand.NewPCG(corpusSeed, 1))
	pick := func(root, language string, skipDir func(string) bool, ext string) []corpusFile {
		var paths []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && skipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ext) {
				paths = append(paths, p)
			}
			return nil
		})
		sort.Strings(paths)
		rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		var fs []corpusFile
		for _, p := range paths {
			if len(fs) == corpusPerLang {
				break
			}
			data, err := os.ReadFile(p)
			if err != nil || len(data) > 200_000 || !utf8.Valid(data) || strings.ContainsAny(string(data), "\r\x00\uFEFF") {
				continue
			}
			text := string(data)
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			if len(lines) < 150 || len(lines) > 4000 {
				continue
			}
			if language == "py" && strings.Contains(text, "\n\t") {
				continue // indented with tabs: not the language's style
			}
			rel, _ := filepath.Rel(root, p)
			f := corpusFile{rel: rel, language: language, lines: lines, finalNL: strings.HasSuffix(text, "\n"), text: text}
			for _, l := range lines {
				f.keys = append(f.keys, key(l))
			}
			fs = append(fs, f)
		}
		return fs
	}
	goFiles := pick(filepath.Join(goroot(tb), "src"), "go", func(n string) bool { return n == "testdata" || n == "vendor" }, ".go")
	pyFiles := pick(pyStdlib(tb), "py", func(n string) bool {
		return n == "site-packages" || n == "test" || n == "tests" || n == "__pycache__" || n == "idle_test"
	}, ".py")
	if len(goFiles) < corpusPerLang || len(pyFiles) < corpusPerLang {
		tb.Fatalf("found %d Go and %d Python files, want %d each", len(goFiles), len(pyFiles), corpusPerLang)
	}
	return append(goFiles, pyFiles...)
}

// srcLine is a line of an intended block and the block line it comes from
// (for an inserted line, the line it follows), so that a slip applied per
// line hits old_string and new_string alike.
type srcLine struct {
	text string
	src  int
}

func joinLines(ls []string, finalNL bool) string {
	s := strings.Join(ls, "\n")
	if finalNL {
		s += "\n"
	}
	return s
}

// unique says the block is the only one of its kind in the file: as text,
// and line by line but for whitespace.
func (f *corpusFile) unique(a, n int) bool {
	if strings.Count(f.text, strings.Join(f.lines[a:a+n], "\n")) != 1 {
		return false
	}
	count := 0
	for i := 0; i+n <= len(f.lines); i++ {
		if slices.Equal(f.keys[i:i+n], f.keys[a:a+n]) {
			count++
		}
	}
	return count == 1
}

// windowElsewhere says whether lines equal (but for whitespace) to ls run
// somewhere in the file other than at a.
func (f *corpusFile) windowElsewhere(ls []string, a int) bool {
	ks := make([]string, len(ls))
	for i, l := range ls {
		ks[i] = key(l)
	}
	for i := 0; i+len(ls) <= len(f.lines); i++ {
		if i != a && slices.Equal(f.keys[i:i+len(ls)], ks) {
			return true
		}
	}
	return false
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{2,}`)

func commonIndent(ls []string) string {
	common, first := "", true
	for _, l := range ls {
		if isBlank(l) {
			continue
		}
		ws := leadingWS(l)
		if first {
			common, first = ws, false
			continue
		}
		for !strings.HasPrefix(ws, common) {
			common = common[:len(common)-1]
		}
	}
	return common
}

// innerWS rewrites the blanks between a line's indentation and its
// trailing blanks: doubled (every run gets one more space) or collapsed.
func innerWS(l string, double bool) string {
	lead := leadingWS(l)
	body := strings.TrimRight(l[len(lead):], " \t")
	tail := l[len(lead)+len(body):]
	var b strings.Builder
	for i := 0; i < len(body); {
		if body[i] != ' ' && body[i] != '\t' {
			b.WriteByte(body[i])
			i++
			continue
		}
		j := i
		for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
			j++
		}
		if double {
			b.WriteString(body[i:j] + " ")
		} else {
			b.WriteByte(' ')
		}
		i = j
	}
	return lead + b.String() + tail
}

// buildCorpus generates the cases to run: every form of new_string but
// those that are the text of another form.
func buildCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	return slices.DeleteFunc(buildCorpusForms(tb), func(c corpusCase) bool { return c.sameAs != "" })
}

// buildCorpusForms generates the cases, every one in every form of
// new_string.
func buildCorpusForms(tb testing.TB) []corpusCase {
	tb.Helper()
	files := corpusFiles(tb)
	rng := rand.New(rand.NewPCG(corpusSeed, 2))     // the first kinds and the negatives
	lateRng := rand.New(rand.NewPCG(corpusSeed, 3)) // corpusLateKinds
	mix := rand.New(rand.NewPCG(corpusSeed, 4))     // mixed forms, slipped negatives
	var cases []corpusCase
	first, late := 0, 0 // model-form cases of the first corpus, and of corpusLateKinds
	for fi := range files {
		f := &files[fi]
		for _, kind := range corpusKinds {
			for k := 0; k < corpusPerKind; k++ {
				r, serial := rng, first
				if corpusLateKinds[kind] {
					r, serial = lateRng, late
				}
				forms, ok := genCase(r, mix, f, kind, serial)
				if !ok {
					continue
				}
				if corpusLateKinds[kind] {
					late++
				} else {
					first++
				}
				cases = append(cases, forms...)
			}
		}
		negs := negativeCases(rng, f, files)
		first += len(negs)
		for _, c := range negs {
			c.form = "model"
			cases = append(cases, c)
		}
		for _, c := range negs {
			if c.kind == "neg:ambiguous" {
				cases = append(cases, corpusSlippedAmbiguous(mix, f, c)...)
			}
		}
	}
	return cases
}

// corpusWithForms gives c (new_string in the model's form) with
// new_string in the file's form and mixed, each marked when it is the same
// text as a form before it.
func corpusWithForms(c corpusCase, file, mixed string) []corpusCase {
	out := []corpusCase{c}
	out[0].form = "model"
	for _, v := range []struct{ form, new string }{{"file", file}, {"mixed", mixed}} {
		d := c
		d.form, d.new = v.form, v.new
		for _, e := range out {
			if e.new == d.new && e.sameAs == "" {
				d.sameAs = e.form
				break
			}
		}
		out = append(out, d)
	}
	return out
}

// corpusPickSome chooses some but not all of n >= 2 items.
func corpusPickSome(mix *rand.Rand, n int) []bool {
	pick := make([]bool, n)
	count := 0
	for i := range pick {
		if mix.IntN(2) == 0 {
			pick[i] = true
			count++
		}
	}
	switch count {
	case 0:
		pick[mix.IntN(n)] = true
	case n:
		pick[mix.IntN(n)] = false
	}
	return pick
}

// corpusMixLines takes, for some but not all of the lines where the
// model's form and the file's differ, the file's. A line and the line
// inserted after it (the same src) take the same form: an inserted line
// has no line of the file to tell its form by, only the line it follows.
// src nil: every line by itself.
func corpusMixLines(mix *rand.Rand, model, file []string, src []int) []string {
	group := func(i int) int {
		if src == nil {
			return i
		}
		return src[i]
	}
	var differ []int // groups
	for i := range model {
		if g := group(i); model[i] != file[i] && !slices.Contains(differ, g) {
			differ = append(differ, g)
		}
	}
	out := slices.Clone(model)
	if len(differ) < 2 {
		return out // the same as one of the two forms
	}
	pick := corpusPickSome(mix, len(differ))
	for i := range out {
		if k := slices.Index(differ, group(i)); k >= 0 && pick[k] {
			out[i] = file[i]
		}
	}
	return out
}

// corpusMixEscaped escapes some runs of lines but not all: each run as the
// model escapes a whole new_string, its inner line breaks as \n, the runs
// joined by real line breaks.
func corpusMixEscaped(mix *rand.Rand, ls []string, finalNL bool) string {
	if len(ls) < 2 {
		return jsonEscape(joinLines(ls, finalNL))
	}
	esc := corpusPickSome(mix, len(ls))
	var b strings.Builder
	for i := 0; i < len(ls); {
		j := i
		for j < len(ls) && esc[j] == esc[i] {
			j++
		}
		run := joinLines(ls[i:j], j == len(ls) && finalNL)
		if esc[i] {
			run = jsonEscape(run)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(run)
		i = j
	}
	return b.String()
}

// corpusOneSide keeps the line breaks at one edge of s only.
func corpusOneSide(mix *rand.Rand, s string, before, after int) string {
	if mix.IntN(2) == 0 {
		return strings.Repeat("\n", before) + s
	}
	return s + strings.Repeat("\n", after)
}

// corpusSlippedAmbiguous: the block of an ambiguous negative given
// re-indented, escaped or with line breaks at its edges, new_string in
// every form. It names two places still and must be refused.
func corpusSlippedAmbiguous(mix *rand.Rand, f *corpusFile, c corpusCase) []corpusCase {
	a := c.line - 1
	block := f.lines[a : a+strings.Count(c.new, "\n")+1]
	plain := strings.Join(block, "\n")
	newLs := strings.Split(c.new, "\n") // the block with the token added
	var old, model, mixed string
	switch mix.IntN(3) {
	case 0:
		level := "    "
		if f.language == "go" {
			level = "\t"
		}
		shift := func(ls []string) []string {
			out := make([]string, len(ls))
			for i, l := range ls {
				if out[i] = l; !isBlank(l) {
					out[i] = level + l
				}
			}
			return out
		}
		old = strings.Join(shift(block), "\n")
		model = strings.Join(shift(newLs), "\n")
		mixed = strings.Join(corpusMixLines(mix, shift(newLs), newLs, nil), "\n")
		if strings.Contains(f.text, old) {
			return nil
		}
	case 1:
		old, model = jsonEscape(plain), jsonEscape(c.new)
		mixed = corpusMixEscaped(mix, newLs, false)
		if strings.Contains(f.text, old) {
			return nil
		}
	default:
		old, model = "\n"+plain+"\n", "\n"+c.new+"\n"
		mixed = corpusOneSide(mix, c.new, 1, 1)
		if strings.Count(f.text, old) < 2 {
			return nil
		}
	}
	s := corpusCase{kind: "neg:ambiguous-slipped", file: f.rel, line: c.line, data: f.text, old: old, new: model, negative: true}
	return corpusWithForms(s, c.new, mixed)
}

func tokens(language string) (appendTok, insertTok string) {
	if language == "go" {
		return "//edited", "//inserted"
	}
	return "#edited", "#inserted"
}

// genCase makes one near-miss edit of kind on f, in every form of
// new_string (see corpusWithForms), or reports that no suitable block was
// found. rng draws the case, mix the choices of the mixed form.
func genCase(rng, mix *rand.Rand, f *corpusFile, kind string, serial int) ([]corpusCase, bool) {
	appendTok, insertTok := tokens(f.language)
	for try := 0; try < 300; try++ {
		n := 1 + rng.IntN(8)
		switch kind {
		case "wrong-middle-line":
			n = 4 + rng.IntN(5)
		case "line-left-out":
			n = 6 + rng.IntN(3)
		}
		if kind == "trailing-ws-removed" && n < 2 {
			n = 2
		}
		a := rng.IntN(len(f.lines) - n + 1)
		block := f.lines[a : a+n]
		if isBlank(block[0]) || isBlank(block[n-1]) || slices.ContainsFunc(block, func(l string) bool { return len(l) > 300 }) {
			continue
		}
		// The line the model changes: not a blank one, whose indentation
		// would be a guess.
		j := rng.IntN(n)
		if isBlank(block[j]) {
			continue
		}
		style := serial % 3
		if style == 2 && n < 2 {
			style = 0
		}

		disk := f.lines // the file as it is on disk, line by line
		var perLine func(text string, src int) string
		whole := func(s string) string { return s }
		leftOut := -1 // a line the model does not show
		crlf := false
		edgeBefore, edgeAfter := 0, 0 // line breaks around old_string
		switch kind {
		case "trailing-ws-added":
			ws := map[int]string{}
			for i := range n {
				if rng.IntN(2) == 0 || len(ws) == 0 && i == n-1 {
					ws[i] = []string{" ", "  ", "\t", " \t "}[rng.IntN(4)]
				}
			}
			perLine = func(t string, src int) string { return t + ws[src] }
		case "trailing-ws-removed":
			// The file has trailing blanks the model does not show. They
			// stay on the lines it does not change.
			disk = slices.Clone(f.lines)
			added := 0
			for i := range n {
				if i != j && (rng.IntN(2) == 0 || added == 0 && i == n-1) {
					disk[a+i] += []string{" ", "  ", "\t"}[rng.IntN(3)]
					added++
				}
			}
			if added == 0 {
				continue
			}
		case "indent-tabs-spaces", "crlf-file+indent":
			perLine = func(t string, _ int) string {
				ws := leadingWS(t)
				if f.language == "go" {
					return strings.ReplaceAll(ws, "\t", "    ") + t[len(ws):]
				}
				return strings.ReplaceAll(ws, "    ", "\t") + t[len(ws):]
			}
			crlf = kind == "crlf-file+indent"
		case "indent-shifted":
			common := commonIndent(block)
			if common != "" && rng.IntN(2) == 0 {
				perLine = func(t string, _ int) string { return strings.TrimPrefix(t, common) }
			} else {
				level := "    "
				if f.language == "go" {
					level = "\t"
				}
				perLine = func(t string, _ int) string {
					if isBlank(t) {
						return t
					}
					return level + t
				}
			}
		case "inner-ws":
			double := rng.IntN(2) == 0
			hit := map[int]bool{}
			for i := range n {
				if rng.IntN(2) == 0 {
					hit[i] = true
				}
			}
			perLine = func(t string, src int) string {
				if !hit[src] {
					return t
				}
				return innerWS(t, double)
			}
		case "escaped":
			whole = jsonEscape
		case "wrong-middle-line":
			w := 1 + rng.IntN(n-2)
			if w == j {
				continue
			}
			loc := identRE.FindAllStringIndex(block[w], -1)
			if len(loc) == 0 {
				continue
			}
			at := loc[rng.IntN(len(loc))]
			tok := block[w][at[0]:at[1]]
			slip := tok + "s"
			if strings.HasSuffix(tok, "s") {
				slip = tok[:len(tok)-1]
			}
			perLine = func(t string, src int) string {
				if src != w {
					return t
				}
				return t[:at[0]] + slip + t[at[1]:]
			}
		case "line-left-out":
			// Not the changed line, and no line inserted right where it
			// was left out (before it or after it would both be right).
			leftOut = 1 + rng.IntN(n-2)
			if leftOut == j || isBlank(block[leftOut]) || style == 1 && leftOut == j+1 {
				continue
			}
		case "blank-boundary":
			before, after := 1+rng.IntN(2), 1+rng.IntN(3)
			edgeBefore, edgeAfter = before, after
			whole = func(s string) string {
				return strings.Repeat("\n", before) + s + strings.Repeat("\n", after)
			}
		case "blank-edge-midline":
			// old_string starts with the line break that ends the line
			// before the block (or with that and a blank line the file
			// has), and ends with the block's last line, or the line break
			// that ends it, or that and a blank line the file has: its
			// exact match starts at the end of a line and may end at the
			// start of one. new_string in the file's form has no line
			// breaks at its edges.
			if a < 2 || a+n+1 >= len(f.lines) {
				continue
			}
			edgeBefore, edgeAfter = 1, rng.IntN(3)
			if disk[a-1] == "" && rng.IntN(2) == 0 {
				edgeBefore = 2
			}
			if edgeAfter == 2 && disk[a+n] != "" {
				edgeAfter = 1
			}
			whole = func(s string) string {
				return strings.Repeat("\n", edgeBefore) + s + strings.Repeat("\n", edgeAfter)
			}
		case "crlf-file":
			crlf = true
		}
		if perLine == nil {
			perLine = func(t string, _ int) string { return t }
		}

		// The intended block, from the lines on disk (unchanged lines are
		// the file's) and from the lines as the model remembers them.
		edit := func(ls []string) []srcLine {
			var out []srcLine
			for i, l := range ls {
				switch {
				case i == j && style == 0:
					out = append(out, srcLine{f.lines[a+i] + appendTok, i})
				case i == j && style == 1:
					out = append(out, srcLine{l, i}, srcLine{leadingWS(f.lines[a+i]) + insertTok, i})
				case i == j && style == 2:
				default:
					out = append(out, srcLine{l, i})
				}
			}
			return out
		}
		// newLs is new_string in the model's form, fileLs in the file's
		// (the intended lines, the left-out one left out), line by line.
		var oldLs, newLs, fileLs, wantLs []string
		var srcs []int // of newLs and fileLs
		for i, l := range block {
			if i != leftOut {
				oldLs = append(oldLs, perLine(l, i))
			}
		}
		onDisk := edit(disk[a : a+n])
		for k, s := range edit(block) {
			if !(s.src == leftOut && s.text == block[leftOut]) {
				newLs = append(newLs, perLine(s.text, s.src))
				fileLs = append(fileLs, onDisk[k].text)
				srcs = append(srcs, s.src)
			}
		}
		for _, s := range onDisk {
			wantLs = append(wantLs, s.text)
		}
		nl := rng.IntN(2) == 0
		if len(newLs) > 0 && isBlank(newLs[len(newLs)-1]) {
			nl = true // else a blank last line reads as a final newline
		}
		if kind == "blank-edge-midline" {
			if isBlank(newLs[len(newLs)-1]) {
				continue
			}
			nl = false // edgeAfter says how old_string ends
		}
		old, nw := whole(joinLines(oldLs, nl)), whole(joinLines(newLs, nl))
		blockText := strings.Join(block, "\n")
		if old == blockText || old == blockText+"\n" {
			if kind != "trailing-ws-removed" && kind != "crlf-file" && kind != "blank-boundary" {
				continue // the slip changed nothing here: not this kind's case
			}
		}
		// A slip that produced text the file really has elsewhere is not
		// a near-miss of this block.
		if slipped := strings.Join(oldLs, "\n"); slipped != blockText && strings.Contains(f.text, strings.TrimSpace(slipped)) {
			continue
		}
		if (kind == "wrong-middle-line" || kind == "line-left-out") && f.windowElsewhere(oldLs, -1) {
			continue
		}
		// old_string that is, byte for byte, text of the file away from
		// the true block names that text, not this block (trailing blanks
		// added to the block can leave another copy of it as the only
		// exact one; blank lines around a line can be another line's).
		diskText := joinLines(disk, f.finalNL)
		bs := len(joinLines(disk[:a], true))
		be := bs + len(joinLines(disk[a:a+n], false))
		elsewhere := false
		for off := 0; ; {
			i := strings.Index(diskText[off:], old)
			if i < 0 {
				break
			}
			if s, e := off+i, off+i+len(old); e <= bs || s >= be {
				elsewhere = true
				break
			}
			off += i + 1
		}
		if elsewhere {
			continue
		}

		all := slices.Concat(disk[:a], wantLs, disk[a+n:])
		data, want := joinLines(disk, f.finalNL), joinLines(all, f.finalNL)
		if crlf {
			data, want = strings.ReplaceAll(data, "\n", "\r\n"), strings.ReplaceAll(want, "\n", "\r\n")
		}
		c := corpusCase{
			kind: kind, file: f.rel, line: a + 1, data: data, old: old, new: nw, want: want,
			negative: !f.unique(a, n),
		}
		if (kind == "blank-boundary" || kind == "blank-edge-midline") && (isBlank(fileLs[0]) || isBlank(fileLs[len(fileLs)-1])) {
			// A blank line at an edge of new_string in the file's form
			// could be the block's or one put around it: only the model's
			// form says which.
			if corpusLateKinds[kind] {
				continue
			}
			c.form = "model"
			return []corpusCase{c}, true
		}
		fileNew := joinLines(fileLs, nl)
		var mixed string
		switch kind {
		case "escaped":
			mixed = corpusMixEscaped(mix, fileLs, nl)
		case "blank-boundary", "blank-edge-midline":
			mixed = corpusOneSide(mix, fileNew, edgeBefore, edgeAfter)
		default: // whole changes nothing
			mixed = joinLines(corpusMixLines(mix, newLs, fileLs, srcs), nl)
		}
		return corpusWithForms(c, fileNew, mixed), true
	}
	return nil, false
}

// negativeCases: text that is not in the file, and blocks that are in it
// twice. Both must be refused and leave the file unchanged.
func negativeCases(rng *rand.Rand, f *corpusFile, files []corpusFile) []corpusCase {
	appendTok, _ := tokens(f.language)
	var cases []corpusCase
	keys := map[string]bool{}
	for _, k := range f.keys {
		keys[k] = true
	}
	// Absent: a block of another file of the same language whose first
	// and last lines the file does not have at all.
	for try := 0; try < 300; try++ {
		g := &files[rng.IntN(len(files))]
		if g.language != f.language || g.rel == f.rel {
			continue
		}
		n := 2 + rng.IntN(5)
		a := rng.IntN(len(g.lines) - n + 1)
		block := g.lines[a : a+n]
		if isBlank(block[0]) || isBlank(block[n-1]) || keys[key(block[0])] || keys[key(block[n-1])] {
			continue
		}
		old := strings.Join(block, "\n")
		if strings.Contains(collapse(f.text, nil), collapse(strings.TrimSpace(old), nil)) {
			continue
		}
		cases = append(cases, corpusCase{kind: "neg:absent", file: f.rel, data: f.text, old: old, new: old + appendTok, negative: true})
		break
	}
	// Ambiguous: a block of 2-4 lines that the file has twice or more,
	// given exactly or with trailing blanks.
	for try, found := 0, 0; try < 2000 && found < 2; try++ {
		n := 2 + rng.IntN(3)
		a := rng.IntN(len(f.lines) - n + 1)
		block := f.lines[a : a+n]
		if isBlank(block[0]) || isBlank(block[n-1]) {
			continue
		}
		// Twice as whole lines, not merely as text (a last line that is
		// the start of a longer line elsewhere is no second place).
		old := strings.Join(block, "\n")
		twice := 0
		for i := 0; i+n <= len(f.lines); i++ {
			if slices.Equal(f.lines[i:i+n], block) {
				twice++
			}
		}
		if twice < 2 {
			continue
		}
		if found == 1 {
			old = strings.ReplaceAll(old, "\n", " \n") + "  "
		}
		cases = append(cases, corpusCase{kind: "neg:ambiguous", file: f.rel, line: a + 1, data: f.text, old: old, new: strings.Join(block, "\n") + appendTok, negative: true})
		found++
	}
	return cases
}

// runCorpus applies every case and tallies the outcomes.
func runCorpus(cases []corpusCase) corpusStats {
	st := corpusStats{kinds: map[string]*tally{}, forms: map[string]*tally{}, negForms: map[string]*tally{}, failures: map[string][]string{}}
	get := func(m map[string]*tally, k string) *tally {
		t := m[k]
		if t == nil {
			t = &tally{}
			m[k] = t
		}
		return t
	}
	// One cache for the corpus, as the hub has one for a session: the
	// guard parses each file once, not once per edit.
	parses := syntax.NewParseCache(0)
	defer parses.Close()
	ctx := context.Background()
	for _, c := range cases {
		kind := c.kind
		if c.negative && !strings.HasPrefix(kind, "neg:") {
			kind = "neg:not-unique"
		}
		form := c.form
		if form == "" {
			form = "model"
		}
		group := kind + "/" + form
		ts := []*tally{get(st.kinds, group), &st.pos, get(st.forms, form)}
		if c.negative {
			ts[1], ts[2] = &st.neg, get(st.negForms, form)
		}
		if c.sameAs != "" {
			for _, t := range ts {
				t.same++
			}
			continue
		}
		a, err := applyEdit(ctx, []byte(c.data), c.file, Change{Old: c.old, New: c.new}, parses)
		switch {
		case errors.Is(err, ErrBreaksSyntax) && intentBreaks(c):
			for _, t := range ts {
				t.guarded++
			}
			continue
		case err != nil:
			for _, t := range ts {
				t.refused++
			}
			if !c.negative {
				st.fail(group, fmt.Sprintf("REFUSED %s %s:%d: %v\nold=%q\nnew=%q", group, c.file, c.line, err, c.old, c.new))
			}
		case c.want != "" && string(a.Data) == c.want:
			for _, t := range ts {
				t.intended++
			}
		default:
			for _, t := range ts {
				t.wrong++
			}
			st.fail(group, fmt.Sprintf("WRONG %s %s:%d\nold=%q\nnew=%q\n%s", group, c.file, c.line, c.old, c.new, firstDiff(c.want, string(a.Data))))
		}
		for _, t := range ts {
			t.cases++
		}
	}
	return st
}

func (st *corpusStats) fail(group, msg string) {
	if st.failures[group] == nil {
		st.groups = append(st.groups, group)
	}
	st.failures[group] = append(st.failures[group], msg)
}

// someFailures takes up to limit failures, the first of every group, then
// the second, and so on.
func (st corpusStats) someFailures(limit int) (some []string, all int) {
	for _, g := range st.groups {
		all += len(st.failures[g])
	}
	for round := 0; len(some) < limit && len(some) < all; round++ {
		for _, g := range st.groups {
			if fs := st.failures[g]; round < len(fs) && len(some) < limit {
				some = append(some, fs[round])
			}
		}
	}
	return some, all
}

// firstDiff shows the first differing line of want and got.
func firstDiff(want, got string) string {
	if want == "" {
		return "applied an edit that must be refused"
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, w, g)
		}
	}
	return "(equal)"
}

// intentBreaks says whether the intended result of c has more syntax
// errors than its file.
func intentBreaks(c corpusCase) bool {
	g := newGuard(context.Background(), c.file, []byte(textfmt.ToLF(c.data)))
	defer g.close()
	broke, err := g.breaks([]byte(textfmt.ToLF(c.want)))
	return err == nil && broke
}

func (st corpusStats) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %6s %9s %6s %8s %5s %7s\n", "kind/form", "cases", "intended", "wrong", "refused", "same", "guarded")
	row := func(name string, t *tally) {
		if t != nil {
			fmt.Fprintf(&b, "%-30s %6d %9d %6d %8d %5d %7d\n", name, t.cases, t.intended, t.wrong, t.refused, t.same, t.guarded)
		}
	}
	for _, k := range corpusKinds {
		for _, f := range corpusForms {
			row(k+"/"+f, st.kinds[k+"/"+f])
		}
	}
	var first tally // the model's form of the kinds the corpus was first built with
	for _, k := range corpusKinds {
		if t := st.kinds[k+"/model"]; t != nil && !corpusLateKinds[k] {
			first.cases, first.intended, first.wrong, first.refused = first.cases+t.cases, first.intended+t.intended, first.wrong+t.wrong, first.refused+t.refused
		}
	}
	row("= near-miss model, first kinds", &first)
	for _, f := range corpusForms {
		row("= near-miss "+f, st.forms[f])
	}
	row("= near-miss total", &st.pos)
	for _, k := range []string{"neg:not-unique", "neg:absent", "neg:ambiguous", "neg:ambiguous-slipped"} {
		for _, f := range corpusForms {
			row(k+"/"+f, st.kinds[k+"/"+f])
		}
	}
	for _, f := range corpusForms {
		row("= negative "+f, st.negForms[f])
	}
	row("= negative total", &st.neg)
	b.WriteString("(same: new_string in this form is the text of an earlier form; counted there, not run again)\n")
	b.WriteString("(guarded: refused by the syntax guard, as the intended result breaks the file's syntax; not counted in cases)\n")
	return b.String()
}

func (st corpusStats) wrongTotal() int { return st.pos.wrong + st.neg.wrong }

// share is of the near-miss cases of all forms.
func (st corpusStats) share() (intended, refused float64) { return st.pos.share() }

func (t tally) share() (intended, refused float64) {
	if t.cases == 0 {
		return 0, 0
	}
	return 100 * float64(t.intended) / float64(t.cases), 100 * float64(t.refused) / float64(t.cases)
}

func TestNearMissCorpus(t *testing.T) {
	st := runCorpus(buildCorpusForms(t))
	t.Logf("near-miss corpus over %d Go and %d Python files, new_string in three forms:\n%s", corpusPerLang, corpusPerLang, st.table())
	model := st.forms["model"]
	if model == nil {
		model = &tally{}
	}
	for _, f := range corpusForms {
		if tf := st.forms[f]; tf != nil {
			in, ref := tf.share()
			t.Logf("%-5s form: applied as intended %.1f%%, wrong %d, refused %.1f%%", f, in, tf.wrong, ref)
		}
	}
	in, ref := st.share()
	t.Logf("all forms: applied as intended %.1f%%, wrong place %d, refused %.1f%%", in, st.wrongTotal(), ref)
	some, all := st.someFailures(40)
	for _, f := range some {
		t.Log(f)
	}
	if all > len(some) {
		t.Logf("... and %d more", all-len(some))
	}
	if model.cases < 500 {
		t.Errorf("%d near-miss cases in the model's form, want at least 500", model.cases)
	}
	if wrong := st.wrongTotal(); wrong != 0 {
		t.Errorf("%d edits applied at a wrong place or with a wrong result; want 0", wrong)
	}
	if in, _ := model.share(); in < 97 {
		t.Errorf("model form: applied as intended %.1f%%, want at least 97%%", in)
	}
	if in < 99 {
		t.Errorf("all forms: applied as intended %.1f%%, want at least 99%%", in)
	}
	for _, k := range []string{"neg:absent/model", "neg:ambiguous/model"} {
		if tl := st.kinds[k]; tl == nil || tl.cases < 20 {
			t.Errorf("too few %s cases", k)
		}
	}
}
