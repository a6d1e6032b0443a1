package anchor_test

// BenchmarkAnchor measures anchoring on quotes taken from real diffs and
// damaged the way reviewers' quotes are:
//
//	go test -run '^$' -bench Anchor -benchtime 1x ./anchor/
//
// The diffs are this repository's own history: the most recent commits
// (git log --no-merges from .., the repository root seen from this
// directory), each as git show prints it (3 lines of context, a/ and b/
// prefixes, renames found; diffs over 2 MB and binary files left out).
// Without git, without a history of at least a few commits, or with
// ANCHOR_CORPUS=goroot in the environment, the diffs are made instead:
// about 200 Go files of $(go env GOROOT)/src are copied into a temporary
// git repository and committed, then edited deterministically (lines
// inserted, deleted and modified, a local variable renamed in one
// function), and git diff HEAD is taken for groups of 8 files.
//
// From each diff, runs of 1–8 consecutive new-side lines of one hunk are
// picked (context or added lines; runs holding a line of at least 8
// non-space characters are preferred, as reviewers quote), with
// math/rand/v2 and a fixed seed. The truth is the run's path and lines on
// the new side. Each quote gets one kind of damage (see corpusKinds). The
// correct answer follows the documented tiers, computed by a reference
// matcher written here from the rule (each line trimmed; a kept diff
// marker forgiven): the truth when the damaged quote matches exactly once
// in the named file (or, when it is not there, exactly once in the other
// files); unplaced when it matches several places. A paraphrased quote
// (one line really changed) is made to match nowhere in the diff, so its
// correct answer is unplaced and any anchor is wrong. A quote taken from
// a neighbouring file (one with at least 12 letters or digits, what the
// package asks before another file may claim a quote) names a file of the
// same diff where it does not match, so the correct answer is tier 2
// moving to the truth.
//
// Each quote is then one of: correct (anchored at the truth, or unplaced
// when that is the answer), wrong (anchored anywhere but the truth, or a
// paraphrase anchored at all) or unplaced (left unplaced though it had
// one place). A wrong anchor fails the benchmark with the quote, the truth
// and the result. TestAnchorCorpusNoWrongAnchors runs a smaller corpus as
// an ordinary test.

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
	"unicode"

	"cchub/anchor"
	"cchub/workspace"
)

// The kinds of damage, one per quote.
const (
	kindVerbatim   = "verbatim"
	kindReindent   = "re-indented"
	kindTrailing   = "trailing-spaces"
	kindMarkers    = "diff-markers"
	kindCRLF       = "crlf"
	kindBlank      = "blank-lines-around"
	kindParaphrase = "paraphrased"
	kindNeighbour  = "neighbouring-file"
)

var corpusKinds = []string{kindVerbatim, kindReindent, kindTrailing, kindMarkers, kindCRLF, kindBlank, kindParaphrase, kindNeighbour}

const (
	corpusSeed1, corpusSeed2 = 20240611, 7 // the sampling's fixed seed
	maxCorpusDiff            = 2 << 20     // diffs larger than this are left out
)

// corpusDiff is one diff of the corpus, with its new sides parsed here
// (independently of the package) for sampling and for the truth.
type corpusDiff struct {
	name  string // the commit, or the group of edited files
	text  string
	files []*corpusFile
}

type corpusFile struct {
	path  string
	hunks []*corpusHunk
}

// corpusHunk is the new side of one hunk: lines first, first+1, ...
type corpusHunk struct {
	first   int
	lines   []string
	markers []byte // '+' for an added line, ' ' for context
}

// parseCorpusDiff reads the new side of every hunk of a git diff. Deleted
// and binary files, and paths git quotes, are left out.
func parseCorpusDiff(text string) []*corpusFile {
	var (
		files []*corpusFile
		cur   *corpusFile
		skip  bool
	)
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			cur, skip = nil, false
		case strings.HasPrefix(l, "Binary files ") || l == "GIT binary patch":
			cur, skip = nil, true
		case strings.HasPrefix(l, "+++ "):
			name := strings.TrimSuffix(strings.TrimPrefix(l, "+++ "), "\r")
			if j := strings.IndexByte(name, '\t'); j >= 0 {
				name = name[:j]
			}
			if name == "/dev/null" || !strings.HasPrefix(name, "b/") || strings.ContainsAny(name, "\"\\ ") {
				cur, skip = nil, true
				continue
			}
			cur = &corpusFile{path: strings.TrimPrefix(name, "b/")}
			files = append(files, cur)
		case strings.HasPrefix(l, "@@ "):
			oldN, newStart, newN, ok := parseHunkHeader(l)
			if !ok {
				continue
			}
			h := &corpusHunk{first: newStart}
			for oldN > 0 || newN > 0 {
				i++
				if i >= len(lines) {
					break
				}
				b := strings.TrimSuffix(lines[i], "\r")
				switch {
				case strings.HasPrefix(b, "\\"): // \ No newline at end of file
				case b == "" || b[0] == ' ':
					h.lines, h.markers = append(h.lines, strings.TrimPrefix(b, " ")), append(h.markers, ' ')
					oldN, newN = oldN-1, newN-1
				case b[0] == '+':
					h.lines, h.markers = append(h.lines, b[1:]), append(h.markers, '+')
					newN--
				case b[0] == '-':
					oldN--
				default:
					oldN, newN = 0, 0
				}
			}
			if cur != nil && !skip && len(h.lines) > 0 {
				cur.hunks = append(cur.hunks, h)
			}
		}
	}
	return slices.DeleteFunc(files, func(f *corpusFile) bool { return len(f.hunks) == 0 })
}

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

func parseHunkHeader(l string) (oldN, newStart, newN int, ok bool) {
	m := hunkHeader.FindStringSubmatch(l)
	if m == nil {
		return 0, 0, 0, false
	}
	count := func(s string) int {
		if s == "" {
			return 1
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	newStart, _ = strconv.Atoi(m[2])
	return count(m[1]), newStart, count(m[3]), true
}

// The reference matcher: the rule of tiers 1–2 as documented, written
// again here so the expected answers do not come from the code measured.

type corpusLoc struct {
	path       string
	start, end int
}

func refQuote(snippet string) []string {
	lines := strings.Split(strings.ReplaceAll(snippet, "\r\n", "\n"), "\n")
	blank := func(s string) bool {
		t := strings.TrimSpace(s)
		return t == "" || t == "+" || t == "-"
	}
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func refSame(q, c string) bool {
	c = strings.TrimSpace(c)
	if strings.TrimSpace(q) == c {
		return true
	}
	return q != "" && strings.ContainsRune("+- ", rune(q[0])) && strings.TrimSpace(q[1:]) == c
}

func refFind(q []string, f *corpusFile) []corpusLoc {
	var out []corpusLoc
	for _, h := range f.hunks {
	next:
		for i := 0; i+len(q) <= len(h.lines); i++ {
			for k := range q {
				if !refSame(q[k], h.lines[i+k]) {
					continue next
				}
			}
			out = append(out, corpusLoc{f.path, h.first + i, h.first + i + len(q) - 1})
		}
	}
	return out
}

// refFindExcept finds q in every file of d but the one named except.
func refFindExcept(q []string, d *corpusDiff, except string) []corpusLoc {
	var out []corpusLoc
	for _, f := range d.files {
		if f.path != except {
			out = append(out, refFind(q, f)...)
		}
	}
	return out
}

// corpusSample is one quote to place, with its truth and correct answer.
type corpusSample struct {
	diff    *corpusDiff
	kind    string
	detail  string // how it was damaged
	reqPath string // the file the request names
	truth   corpusLoc
	lines   []string // the truth's lines, verbatim
	snippet string
	// wantUnplaced: the correct answer is unplaced (the quote matches
	// several places, or, paraphrased, none).
	wantUnplaced bool
	wantTier     string // when it is to be anchored
	inDiff       int    // how many places of all the diff's new sides the quote matches
}

// pickRun picks a run of 1–8 consecutive new-side lines of one hunk of f,
// preferring runs with a line of at least 8 non-space characters; its
// first and last lines are not blank.
func pickRun(rng *rand.Rand, f *corpusFile) (h *corpusHunk, i, j int, ok bool) {
	for try := 0; try < 6; try++ {
		h = f.hunks[rng.IntN(len(f.hunks))]
		k := min(1+rng.IntN(8), len(h.lines))
		i = rng.IntN(len(h.lines) - k + 1)
		j = i + k
		for i < j && quoteBlank(h.lines[i]) {
			i++
		}
		for j > i && quoteBlank(h.lines[j-1]) {
			j--
		}
		if i == j {
			continue
		}
		if try == 5 || slices.ContainsFunc(h.lines[i:j], substantial) {
			return h, i, j, true
		}
	}
	return nil, 0, 0, false
}

func quoteBlank(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t == "+" || t == "-"
}

// substantial says whether a line has at least 8 non-space characters.
func substantial(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n >= 8
}

// buildCorpus picks n quotes from the diffs, the kinds in turn.
func buildCorpus(diffs []*corpusDiff, n int) []*corpusSample {
	rng := rand.New(rand.NewPCG(corpusSeed1, corpusSeed2))
	seen := map[string]bool{}
	var out []*corpusSample
	for attempts := 0; len(out) < n && attempts < n*100; attempts++ {
		kind := corpusKinds[len(out)%len(corpusKinds)]
		d := diffs[rng.IntN(len(diffs))]
		if kind == kindNeighbour && len(d.files) < 2 {
			continue
		}
		f := d.files[rng.IntN(len(d.files))]
		h, i, j, ok := pickRun(rng, f)
		if !ok {
			continue
		}
		s := &corpusSample{diff: d, kind: kind, reqPath: f.path, lines: slices.Clone(h.lines[i:j]),
			truth: corpusLoc{f.path, h.first + i, h.first + j - 1}}
		key := fmt.Sprintf("%s %s:%d-%d %s", d.name, f.path, s.truth.start, s.truth.end, kind)
		if seen[key] {
			continue
		}
		if !damage(rng, s, h.markers[i:j]) || !s.expect() {
			continue
		}
		seen[key] = true
		out = append(out, s)
	}
	return out
}

// expect computes the correct answer with the reference matcher; false
// means the sample does not test what its kind is for, and is redrawn.
func (s *corpusSample) expect() bool {
	q := refQuote(s.snippet)
	if len(q) == 0 {
		return false
	}
	all := refFindExcept(q, s.diff, "")
	s.inDiff = len(all)
	if s.kind == kindParaphrase {
		s.wantUnplaced = true
		return len(all) == 0
	}
	var own *corpusFile
	for _, f := range s.diff.files {
		if f.path == s.reqPath {
			own = f
		}
	}
	hits, tier := refFind(q, own), anchor.TierSameFile
	if len(hits) == 0 {
		hits, tier = refFindExcept(q, s.diff, s.reqPath), anchor.TierOtherFile
	}
	if !slices.Contains(hits, s.truth) {
		return false
	}
	s.wantUnplaced, s.wantTier = len(hits) > 1, tier
	return true
}

// damage writes the sample's quote, damaged as its kind says.
func damage(rng *rand.Rand, s *corpusSample, markers []byte) bool {
	lines := s.lines
	switch s.kind {
	case kindVerbatim:
		s.snippet = strings.Join(lines, "\n")
	case kindReindent:
		s.snippet, s.detail = reindent(rng, lines)
	case kindTrailing:
		pads := []string{" ", "  ", "   ", "\t", " \t"}
		var b strings.Builder
		for k, l := range lines {
			if k > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l)
			if k == len(lines)-1 || rng.IntN(3) > 0 {
				b.WriteString(pads[rng.IntN(len(pads))])
			}
		}
		s.snippet = b.String()
	case kindMarkers:
		out := make([]string, len(lines))
		for k, l := range lines {
			out[k] = string(markers[k]) + l
		}
		s.snippet = strings.Join(out, "\n")
	case kindCRLF:
		s.snippet = strings.Join(lines, "\r\n") + "\r\n"
	case kindBlank:
		around := []string{"\n", "\n\n", "  \n", "\n\t\n"}
		s.snippet = around[rng.IntN(len(around))] + strings.Join(lines, "\n") + around[rng.IntN(len(around))]
	case kindParaphrase:
		return paraphrase(rng, s)
	case kindNeighbour:
		// Another file claims only a quote with some words in it (12
		// letters or digits, as the package has it): a lone `}` found
		// elsewhere says nothing. A reviewer's quote from the wrong file
		// is such a line or more.
		if alnum := strings.Count(strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return 'x'
			}
			return -1
		}, strings.Join(lines, "")), "x"); alnum < 12 {
			return false
		}
		s.snippet = strings.Join(lines, "\n")
		var others []string
		for _, f := range s.diff.files {
			if f.path != s.truth.path {
				others = append(others, f.path)
			}
		}
		rng.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
		q := refQuote(s.snippet)
		for _, p := range others {
			var f *corpusFile
			for _, g := range s.diff.files {
				if g.path == p {
					f = g
				}
			}
			if len(refFind(q, f)) == 0 {
				s.reqPath, s.detail = p, "named "+p
				return true
			}
		}
		return false
	}
	return true
}

// reindent changes the quote's indentation: removed, dedented, tabs and
// spaces swapped, or shifted.
func reindent(rng *rand.Rand, lines []string) (string, string) {
	orig := strings.Join(lines, "\n")
	each := func(f func(string) string) string {
		out := make([]string, len(lines))
		for k, l := range lines {
			out[k] = f(l)
		}
		return strings.Join(out, "\n")
	}
	indentOf := func(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }
	variants := []func() (string, string){
		func() (string, string) {
			return each(func(l string) string { return strings.TrimLeft(l, " \t") }), "indentation removed"
		},
		func() (string, string) {
			common := ""
			for k, l := range lines {
				if strings.TrimSpace(l) == "" {
					continue
				}
				if ind := indentOf(l); k == 0 || len(ind) < len(common) {
					common = ind
				}
			}
			return each(func(l string) string { return strings.TrimPrefix(l, common) }), "dedented"
		},
		func() (string, string) {
			return each(func(l string) string {
				ind := indentOf(l)
				if strings.Contains(ind, "\t") {
					return strings.ReplaceAll(ind, "\t", "    ") + l[len(ind):]
				}
				return strings.ReplaceAll(ind, "    ", "\t") + l[len(ind):]
			}), "tabs and spaces swapped"
		},
		func() (string, string) {
			return each(func(l string) string { return "  " + l }), "shifted by 2 spaces"
		},
	}
	start := rng.IntN(len(variants))
	for k := range variants {
		if out, what := variants[(start+k)%len(variants)](); out != orig {
			return out, what
		}
	}
	return variants[3]()
}

// paraphrase changes one line of the quote for real (a renamed
// identifier, an operator or a literal changed, a comment reworded) so
// that the quote matches nowhere in the diff.
func paraphrase(rng *rand.Rand, s *corpusSample) bool {
	order := rng.Perm(len(s.lines))
	slices.SortStableFunc(order, func(a, b int) int { // substantial lines first
		return boolInt(!substantial(s.lines[a])) - boolInt(!substantial(s.lines[b]))
	})
	prose := strings.HasSuffix(s.truth.path, ".md") || strings.HasSuffix(s.truth.path, ".txt")
	for _, k := range order {
		line := s.lines[k]
		changes := []func(*rand.Rand, string, bool) (string, string, bool){renameIdent, changeOperator, changeLiteral, rewordComment}
		rng.Shuffle(len(changes), func(a, b int) { changes[a], changes[b] = changes[b], changes[a] })
		for _, change := range changes {
			nl, what, ok := change(rng, line, prose)
			if !ok || strings.TrimSpace(nl) == strings.TrimSpace(line) {
				continue
			}
			lines := slices.Clone(s.lines)
			lines[k] = nl
			s.snippet = strings.Join(lines, "\n")
			s.detail = fmt.Sprintf("line %d: %s", k+1, what)
			if len(refFindExcept(refQuote(s.snippet), s.diff, "")) == 0 {
				return true
			}
		}
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var (
	identRe  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	numberRe = regexp.MustCompile(`\b[0-9]+\b`)
	stringRe = regexp.MustCompile(`"[^"\\\n]*[A-Za-z]{3,}[^"\\\n]*"`)
	wordRe   = regexp.MustCompile(`[A-Za-z]{2,}`)
)

func renameIdent(rng *rand.Rand, line string, _ bool) (string, string, bool) {
	var ids [][]int
	for _, m := range identRe.FindAllStringIndex(line, -1) {
		if id := line[m[0]:m[1]]; len(id) >= 2 && !token.IsKeyword(id) {
			ids = append(ids, m)
		}
	}
	if len(ids) == 0 {
		return "", "", false
	}
	m := ids[rng.IntN(len(ids))]
	id := line[m[0]:m[1]]
	var names []string
	if len(id) > 3 && strings.HasSuffix(id, "s") {
		names = append(names, id[:len(id)-1])
	} else {
		names = append(names, id+"s")
	}
	if len(id) >= 6 {
		names = append(names, id[:4])
	}
	if r := rune(id[0]); unicode.IsUpper(r) {
		names = append(names, string(unicode.ToLower(r))+id[1:])
	} else if unicode.IsLower(r) {
		names = append(names, string(unicode.ToUpper(r))+id[1:])
	}
	name := names[rng.IntN(len(names))]
	return line[:m[0]] + name + line[m[1]:], fmt.Sprintf("identifier %s renamed %s", id, name), true
}

var operatorSwaps = [][2]string{{"==", "!="}, {"!=", "=="}, {"<=", "<"}, {">=", ">"}, {"&&", "||"}, {"||", "&&"}, {":=", "="}, {"+=", "-="}, {"-=", "+="}, {"++", "--"}, {"--", "++"}}

func changeOperator(rng *rand.Rand, line string, _ bool) (string, string, bool) {
	type at struct{ pos, swap int }
	var found []at
	for k, sw := range operatorSwaps {
		for off := 0; ; {
			p := strings.Index(line[off:], sw[0])
			if p < 0 {
				break
			}
			found = append(found, at{off + p, k})
			off += p + len(sw[0])
		}
	}
	if len(found) == 0 {
		return "", "", false
	}
	f := found[rng.IntN(len(found))]
	sw := operatorSwaps[f.swap]
	return line[:f.pos] + sw[1] + line[f.pos+len(sw[0]):], fmt.Sprintf("operator %s changed to %s", sw[0], sw[1]), true
}

func changeLiteral(rng *rand.Rand, line string, _ bool) (string, string, bool) {
	nums := numberRe.FindAllStringIndex(line, -1)
	strs := stringRe.FindAllStringIndex(line, -1)
	if len(nums)+len(strs) == 0 {
		return "", "", false
	}
	k := rng.IntN(len(nums) + len(strs))
	if k < len(nums) {
		m := nums[k]
		n, err := strconv.Atoi(line[m[0]:m[1]])
		if err != nil {
			return "", "", false
		}
		return line[:m[0]] + strconv.Itoa(n+1) + line[m[1]:], fmt.Sprintf("literal %d changed to %d", n, n+1), true
	}
	m := strs[k-len(nums)]
	lit := line[m[0]:m[1]]
	nl, what, ok := rewordText(rng, lit[1:len(lit)-1])
	if !ok {
		return "", "", false
	}
	return line[:m[0]] + `"` + nl + `"` + line[m[1]:], "string literal: " + what, true
}

func rewordComment(rng *rand.Rand, line string, prose bool) (string, string, bool) {
	at := strings.Index(line, "//")
	switch t := strings.TrimSpace(line); {
	case at >= 0:
		at += 2
	case strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || prose:
		at = 0
	default:
		return "", "", false
	}
	nl, what, ok := rewordText(rng, line[at:])
	if !ok {
		return "", "", false
	}
	return line[:at] + nl, "comment: " + what, true
}

var synonyms = map[string]string{
	"the": "a", "a": "the", "is": "was", "are": "were", "returns": "gives", "return": "give",
	"file": "path", "files": "paths", "when": "if", "if": "when", "each": "every", "every": "each",
	"not": "never", "and": "or", "or": "and", "must": "should", "should": "must", "can": "may",
	"all": "every", "with": "using", "error": "failure", "errors": "failures", "line": "row",
	"lines": "rows", "first": "initial", "new": "fresh", "old": "previous", "one": "a single",
	"it": "this", "this": "it", "that": "which", "from": "out of", "to": "into", "in": "within",
}

// rewordText rewords a text: a word replaced by a near synonym, dropped,
// or swapped with the next.
func rewordText(rng *rand.Rand, text string) (string, string, bool) {
	words := wordRe.FindAllStringIndex(text, -1)
	if len(words) == 0 {
		return "", "", false
	}
	var syn [][]int
	for _, m := range words {
		if _, ok := synonyms[strings.ToLower(text[m[0]:m[1]])]; ok {
			syn = append(syn, m)
		}
	}
	switch c := rng.IntN(3); {
	case c == 0 && len(syn) > 0:
		m := syn[rng.IntN(len(syn))]
		w := text[m[0]:m[1]]
		r := synonyms[strings.ToLower(w)]
		if unicode.IsUpper(rune(w[0])) {
			r = strings.ToUpper(r[:1]) + r[1:]
		}
		return text[:m[0]] + r + text[m[1]:], fmt.Sprintf("%q reworded %q", w, r), true
	case c == 1 && len(words) >= 2:
		k := rng.IntN(len(words) - 1)
		a, b := words[k], words[k+1]
		return text[:a[0]] + text[b[0]:b[1]] + text[a[1]:b[0]] + text[a[0]:a[1]] + text[b[1]:],
			fmt.Sprintf("%q and %q swapped", text[a[0]:a[1]], text[b[0]:b[1]]), true
	case len(words) >= 3:
		m := words[rng.IntN(len(words))]
		end := m[1]
		for end < len(text) && text[end] == ' ' {
			end++
		}
		return text[:m[0]] + text[end:], fmt.Sprintf("%q dropped", text[m[0]:m[1]]), true
	}
	return "", "", false
}

// Loading the diffs.

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "core.quotepath=false", "-c", "core.autocrlf=false",
		"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "LC_ALL=C")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

var showArgs = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--unified=3", "--find-renames", "--src-prefix=a/", "--dst-prefix=b/"}

// historyDiffs is the diffs of the repository's last commits.
func historyDiffs(commits int) ([]*corpusDiff, error) {
	out, err := gitOutput("..", "log", "--no-merges", "--format=%H", "-n", strconv.Itoa(commits))
	if err != nil {
		return nil, err
	}
	var diffs []*corpusDiff
	for _, c := range strings.Fields(out) {
		text, err := gitOutput("..", append(append([]string{"show", "--format="}, showArgs...), c)...)
		if err != nil || len(text) > maxCorpusDiff {
			continue
		}
		if files := parseCorpusDiff(text); len(files) > 0 {
			diffs = append(diffs, &corpusDiff{name: c[:12], text: text, files: files})
		}
	}
	multi := 0
	for _, d := range diffs {
		if len(d.files) > 1 {
			multi++
		}
	}
	if len(diffs) < 10 || multi < 3 {
		return nil, fmt.Errorf("too little history: %d usable commits, %d of several files", len(diffs), multi)
	}
	return diffs, nil
}

// gorootDiffs copies Go files of GOROOT into a new repository, commits
// them, edits them and returns git diff HEAD for groups of 8 files.
func gorootDiffs(tb testing.TB, nfiles int) ([]*corpusDiff, error) {
	goroot := os.Getenv("GOROOT")
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	if goroot == "" {
		return nil, errors.New("GOROOT is unknown")
	}
	src := filepath.Join(goroot, "src")
	var all []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if info, err := d.Info(); err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") && info.Size() > 2000 && info.Size() < 60000 {
			all = append(all, p)
		}
		return nil
	})
	if err != nil || len(all) < nfiles {
		return nil, fmt.Errorf("GOROOT %s has %d Go files to copy: %v", goroot, len(all), err)
	}
	dir := tb.TempDir()
	var rels []string
	for k := range nfiles {
		p := all[k*len(all)/nfiles]
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, rel), data, 0o644); err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		if _, err := gitOutput(dir, args...); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(corpusSeed1+1, corpusSeed2))
	for _, rel := range rels {
		full := filepath.Join(dir, rel)
		data, err := os.ReadFile(full)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(editGoFile(rng, string(data))), 0o644); err != nil {
			return nil, err
		}
	}
	var diffs []*corpusDiff
	for k := 0; k < len(rels); k += 8 {
		group := rels[k:min(k+8, len(rels))]
		text, err := gitOutput(dir, append(append(append([]string{"diff"}, showArgs...), "HEAD", "--"), group...)...)
		if err != nil {
			return nil, err
		}
		if files := parseCorpusDiff(text); len(files) > 0 {
			diffs = append(diffs, &corpusDiff{name: fmt.Sprintf("goroot-%02d", k/8), text: text, files: files})
		}
	}
	return diffs, nil
}

var (
	localDecl = regexp.MustCompile(`^\s*([a-z][A-Za-z0-9]*)(?:, [a-z][A-Za-z0-9]*)* :=`)
	renames   = map[string]string{"n": "count", "i": "idx", "err": "e", "buf": "buffer", "s": "str", "b": "data",
		"ok": "found", "v": "val", "x": "val", "p": "ptr", "r": "rd", "w": "wr", "t": "typ", "c": "ch", "f": "fn", "m": "mp", "k": "key"}
	insertions = [][]string{
		{"// Check the result before going on."},
		{"if err != nil {", "\treturn err", "}"},
		{"// TODO: handle the empty case."},
		{"debugLog(\"state: %v\", state)"},
		{"defer trace()()"},
	}
)

// editGoFile edits a Go file as a commit would: a local variable renamed
// in one function, then lines inserted, deleted and modified.
func editGoFile(rng *rand.Rand, text string) string {
	lines := strings.Split(text, "\n")
	type fn struct{ start, end int }
	var fns []fn
	for k := 0; k < len(lines); k++ {
		if strings.HasPrefix(lines[k], "func ") && strings.HasSuffix(lines[k], "{") {
			e := k + 1
			for e < len(lines) && lines[e] != "}" {
				e++
			}
			fns = append(fns, fn{k, e})
			k = e
		}
	}
	rng.Shuffle(len(fns), func(a, b int) { fns[a], fns[b] = fns[b], fns[a] })
rename:
	for _, f := range fns {
		for k := f.start + 1; k < f.end; k++ {
			m := localDecl.FindStringSubmatch(lines[k])
			if m == nil {
				continue
			}
			name := renames[m[1]]
			if name == "" {
				name = m[1] + "Local"
			}
			word := regexp.MustCompile(`\b` + m[1] + `\b`)
			if strings.Contains(strings.Join(lines[f.start:f.end], "\n"), name) {
				continue
			}
			for j := f.start + 1; j < f.end; j++ {
				lines[j] = word.ReplaceAllString(lines[j], name)
			}
			break rename
		}
	}
	var pos []int
	for range 2 + rng.IntN(4) {
		pos = append(pos, rng.IntN(len(lines)))
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	for _, p := range slices.Backward(pos) {
		indent := lines[p][:len(lines[p])-len(strings.TrimLeft(lines[p], "\t"))]
		switch rng.IntN(3) {
		case 0:
			ins := insertions[rng.IntN(len(insertions))]
			add := make([]string, len(ins))
			for j, l := range ins {
				add[j] = indent + l
			}
			lines = slices.Insert(lines, p+1, add...)
		case 1:
			lines = slices.Delete(lines, p, min(p+1+rng.IntN(2), len(lines)))
		default:
			l := lines[p]
			switch {
			case numberRe.MatchString(l):
				m := numberRe.FindStringIndex(l)
				n, _ := strconv.Atoi(l[m[0]:m[1]])
				l = l[:m[0]] + strconv.Itoa(n*2+1) + l[m[1]:]
			case strings.Contains(l, "=="):
				l = strings.Replace(l, "==", "!=", 1)
			case strings.TrimSpace(l) != "" && !strings.Contains(l, "//") && !strings.Contains(l, "`"):
				l += " // changed"
			default:
				l = indent + "_ = 0"
			}
			lines[p] = l
		}
	}
	return strings.Join(lines, "\n")
}

// loadCorpusDiffs is the history's diffs or, failing that, GOROOT's.
func loadCorpusDiffs(tb testing.TB, commits, gorootFiles int) ([]*corpusDiff, string, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, "", fmt.Errorf("git is not installed: %v", err)
	}
	var why error
	if os.Getenv("ANCHOR_CORPUS") == "goroot" {
		why = errors.New("ANCHOR_CORPUS=goroot")
	} else {
		diffs, err := historyDiffs(commits)
		if err == nil {
			return diffs, fmt.Sprintf("the last %d commits of this repository's history", len(diffs)), nil
		}
		why = err
	}
	diffs, err := gorootDiffs(tb, gorootFiles)
	if err != nil {
		return nil, "", fmt.Errorf("no history (%v) and no GOROOT corpus (%v)", why, err)
	}
	return diffs, fmt.Sprintf("%d diffs of edited GOROOT files (history: %v)", len(diffs), why), nil
}

// Running and scoring.

type corpusTally struct {
	n, correct, wrong, unplaced, anomalies int
	wantUnplaced, atTruth, tier1, tier2    int
	nonPara, nonParaAtTruth, placeable     int
}

func (t *corpusTally) add(o corpusTally) {
	t.n += o.n
	t.correct += o.correct
	t.wrong += o.wrong
	t.unplaced += o.unplaced
	t.anomalies += o.anomalies
	t.wantUnplaced += o.wantUnplaced
	t.atTruth += o.atTruth
	t.tier1 += o.tier1
	t.tier2 += o.tier2
	t.nonPara += o.nonPara
	t.nonParaAtTruth += o.nonParaAtTruth
	t.placeable += o.placeable
}

// runCorpus anchors every sample and scores it; wrong anchors and results
// that disagree with the truth in their details are reported as errors.
func runCorpus(tb testing.TB, root *workspace.Root, samples []*corpusSample, report bool) (map[string]*corpusTally, time.Duration) {
	ctx := context.Background()
	byKind := map[string]*corpusTally{}
	var spent time.Duration
	missed := 0
	for _, s := range samples {
		req := anchor.Request{Path: s.reqPath, Snippet: s.snippet, DiffText: s.diff.text}
		t0 := time.Now()
		res, err := anchor.Anchor(ctx, root, req, anchor.Options{})
		spent += time.Since(t0)
		if !report {
			continue
		}
		t := byKind[s.kind]
		if t == nil {
			t = &corpusTally{}
			byKind[s.kind] = t
		}
		t.n++
		if s.wantUnplaced {
			t.wantUnplaced++
		}
		if s.kind != kindParaphrase {
			t.nonPara++
			if !s.wantUnplaced {
				t.placeable++
			}
		}
		if err != nil {
			t.unplaced++
			t.anomalies++
			tb.Errorf("anchor error for %s: %v\nsnippet %q", s.describe(), err, s.snippet)
			continue
		}
		atTruth := res.Anchored && res.Path == s.truth.path && res.StartLine == s.truth.start && res.EndLine == s.truth.end
		switch {
		case res.Anchored && (!atTruth || s.kind == kindParaphrase):
			t.wrong++
			tb.Errorf("WRONG ANCHOR: %s\nsnippet (%d bytes): %q\nresult: %s\ntruth's lines: %q\nresult's lines: %q\ntruth in the diff:\n%sresult in the diff:\n%s",
				s.describe(), len(s.snippet), s.snippet, describeResult(res), s.lines, res.Lines,
				excerpt(s.diff, s.truth.path, s.truth.start, s.truth.end), excerpt(s.diff, res.Path, res.StartLine, res.EndLine))
		case atTruth:
			t.correct++
			t.atTruth++
			if res.Tier == anchor.TierSameFile {
				t.tier1++
			} else if res.Tier == anchor.TierOtherFile {
				t.tier2++
			}
			t.nonParaAtTruth++
			wantMoved := ""
			if s.wantTier == anchor.TierOtherFile {
				wantMoved = s.reqPath
			}
			if s.wantUnplaced || res.Tier != s.wantTier || res.MovedFrom != wantMoved || !slices.Equal(res.Lines, s.lines) {
				t.anomalies++
				tb.Errorf("anchored at the truth, but not as expected (want unplaced %v, tier %s, moved from %q): %s\nsnippet %q\nresult: %s\nlines %q, want %q",
					s.wantUnplaced, s.wantTier, wantMoved, s.describe(), s.snippet, describeResult(res), res.Lines, s.lines)
			}
		case s.wantUnplaced:
			t.correct++
			if s.kind != kindParaphrase && len(res.Candidates) < 10 && !slices.ContainsFunc(res.Candidates, func(c anchor.Candidate) bool {
				return c.Path == s.truth.path && c.StartLine == s.truth.start && c.EndLine == s.truth.end
			}) {
				t.anomalies++
				tb.Errorf("ambiguous quote left unplaced, but the truth is not among its %d candidates: %s\nsnippet %q\nresult: %s",
					len(res.Candidates), s.describe(), s.snippet, describeResult(res))
			}
		default:
			t.unplaced++
			if missed++; missed <= 10 {
				tb.Logf("unplaced though it has one place: %s\nsnippet %q\nresult: %s", s.describe(), s.snippet, describeResult(res))
			}
		}
	}
	return byKind, spent
}

func (s *corpusSample) describe() string {
	d := ""
	if s.detail != "" {
		d = " (" + s.detail + ")"
	}
	return fmt.Sprintf("diff %s, kind %s%s, request path %s, truth %s:%d-%d, places in the diff %d, correct answer %s",
		s.diff.name, s.kind, d, s.reqPath, s.truth.path, s.truth.start, s.truth.end, s.inDiff, map[bool]string{true: "unplaced", false: "the truth"}[s.wantUnplaced])
}

// excerpt is the new side of the hunk of d holding path:start-end, with
// line numbers and markers, 3 lines around it.
func excerpt(d *corpusDiff, path string, start, end int) string {
	var b strings.Builder
	for _, f := range d.files {
		if f.path != path {
			continue
		}
		for _, h := range f.hunks {
			if start < h.first || end >= h.first+len(h.lines) {
				continue
			}
			fmt.Fprintf(&b, "    %s (new side of the hunk at line %d):\n", path, h.first)
			for k := max(start-3, h.first); k <= min(end+3, h.first+len(h.lines)-1); k++ {
				at := " "
				if k >= start && k <= end {
					at = ">"
				}
				fmt.Fprintf(&b, "    %s%5d %c%s\n", at, k, h.markers[k-h.first], h.lines[k-h.first])
			}
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("    %s:%d-%d is on no hunk's new side of the diff (as read here)\n", path, start, end)
	}
	return b.String()
}

func describeResult(r *anchor.Result) string {
	if !r.Anchored {
		return fmt.Sprintf("unplaced (%s), %d candidates %v", r.Reason, len(r.Candidates), r.Candidates)
	}
	return fmt.Sprintf("anchored, tier %s, %s:%d-%d, moved from %q", r.Tier, r.Path, r.StartLine, r.EndLine, r.MovedFrom)
}

// kindTable is the per-kind table and the totals.
func kindTable(byKind map[string]*corpusTally) (string, corpusTally) {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kind\tsnippets\tcorrect\twrong\tunplaced\tambiguous\tat truth (tier 1/2)\tcorrect %\t")
	var total corpusTally
	row := func(name string, t corpusTally) {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d (%d/%d)\t%.1f\t\n", name, t.n, t.correct, t.wrong, t.unplaced, t.wantUnplaced,
			t.atTruth, t.tier1, t.tier2, 100*float64(t.correct)/float64(max(t.n, 1)))
	}
	for _, k := range corpusKinds {
		if t := byKind[k]; t != nil {
			row(k, *t)
			total.add(*t)
		}
	}
	row("all", total)
	w.Flush()
	return b.String(), total
}

func corpusRoot(tb testing.TB) *workspace.Root {
	root, err := workspace.Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { root.Close() })
	return root
}

func BenchmarkAnchor(b *testing.B) {
	diffs, source, err := loadCorpusDiffs(b, 80, 200)
	if err != nil {
		b.Skip(err)
	}
	samples := buildCorpus(diffs, 400)
	if len(samples) < 300 {
		b.Fatalf("only %d snippets from %s", len(samples), source)
	}
	root := corpusRoot(b)
	var (
		byKind map[string]*corpusTally
		spent  time.Duration
		calls  int
	)
	for first := true; b.Loop(); first = false {
		k, d := runCorpus(b, root, samples, first)
		if first {
			byKind = k
		}
		spent += d
		calls += len(samples)
	}
	table, total := kindTable(byKind)
	b.Logf("corpus: %d snippets from %s\n%s", total.n, source, table)
	b.ReportMetric(float64(total.n), "snippets")
	b.ReportMetric(float64(total.correct)/float64(total.n), "correct-share")
	b.ReportMetric(float64(total.wrong), "wrong")
	b.ReportMetric(float64(total.unplaced)/float64(total.n), "unplaced-share")
	b.ReportMetric(float64(total.nonParaAtTruth)/float64(max(total.nonPara, 1)), "tier12-share")
	b.ReportMetric(float64(total.nonParaAtTruth)/float64(max(total.placeable, 1)), "tier12-placeable-share")
	b.ReportMetric(float64(spent.Microseconds())/float64(max(calls, 1)), "µs/snippet")
	if total.wrong > 0 {
		b.Errorf("%d wrong anchors (see above): each is a bug", total.wrong)
	}
}

// TestAnchorCorpusNoWrongAnchors anchors a smaller corpus (120 quotes of
// the last 40 commits, or of GOROOT's edited files) and requires that no
// quote is anchored anywhere but its truth.
func TestAnchorCorpusNoWrongAnchors(t *testing.T) {
	diffs, source, err := loadCorpusDiffs(t, 40, 80)
	if err != nil {
		t.Skip(err)
	}
	samples := buildCorpus(diffs, 120)
	if len(samples) < 100 {
		t.Fatalf("only %d snippets from %s", len(samples), source)
	}
	byKind, _ := runCorpus(t, corpusRoot(t), samples, true)
	table, total := kindTable(byKind)
	t.Logf("corpus: %d snippets from %s\n%s", total.n, source, table)
	if total.wrong > 0 {
		t.Errorf("%d wrong anchors", total.wrong)
	}
	if total.correct == 0 {
		t.Error("nothing was placed correctly")
	}
}
