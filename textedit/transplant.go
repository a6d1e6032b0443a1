package textedit

import (
	"strconv"
	"strings"
)

// transplant is what replaces span, whole lines of the file that a layer
// matched to old (old_string as the layer saw it), so that the file gets the
// change the model made from old to nw and nothing else. Lines the model
// left unchanged keep the file's own text: its indentation, its whitespace,
// and the tokens the model misremembered. Changed lines keep the file's
// indentation and the text around the change. fileTabs says how the file
// indents, for when none of span's lines tell.
//
// ok is false when the model changed lines of old that cannot be lined up
// with the file's: the edit would then be a guess.
//
// force, when formFile or formModel, takes every line of nw in that form
// instead of deciding line by line (see newForms).
func transplant(span, old, nw string, fileTabs func() bool, force int) (rep string, ok bool) {
	spanNL := strings.HasSuffix(span, "\n")
	F := strings.Split(strings.TrimSuffix(span, "\n"), "\n")
	oldNL := strings.HasSuffix(old, "\n")
	O := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	newNL := strings.HasSuffix(nw, "\n")
	var N []string
	if nw != "" {
		N = strings.Split(strings.TrimSuffix(nw, "\n"), "\n")
	}
	tabs := indentStyle(F, fileTabs)
	fOf := alignLines(O, F)

	// What the model did to each line of old: kept it (as a line of new),
	// replaced it (by a line of new), or deleted it; ins[i] are lines of
	// new inserted before old's line i. A line of new that is old's line,
	// or the file's line old's stands for, keeps it: a model may quote old
	// from a faulty memory and write new from the file.
	keptAs, replacedBy := fill(len(O), -1), fill(len(O), -1)
	ins := make([][]int, len(O)+1)
	same := func(i, j int) bool { return O[i] == N[j] || fOf[i] >= 0 && F[fOf[i]] == N[j] }
	pi, pj := 0, 0
	for _, p := range append(lcsPairs(len(O), len(N), same), [2]int{len(O), len(N)}) {
		k := min(p[0]-pi, p[1]-pj)
		for t := 0; t < k; t++ {
			replacedBy[pi+t] = pj + t
		}
		for t := pj + k; t < p[1]; t++ {
			ins[p[0]] = append(ins[p[0]], t)
		}
		if p[0] < len(O) {
			keptAs[p[0]] = p[1]
		}
		pi, pj = p[0]+1, p[1]+1
	}
	asWritten := newForms(O, N, F, fOf, keptAs, replacedBy)
	if force != formUnknown {
		for j := range asWritten {
			asWritten[j] = force == formFile
		}
	}

	noise := false // old_string had trailing blanks the file does not
	var refO, refF string
	haveRef := false
	for i, f := range fOf {
		if f < 0 {
			continue
		}
		if tw := trailingWS(O[i]); tw != "" && len(tw) > len(trailingWS(F[f])) {
			noise = true
		}
		if !haveRef && !isBlank(O[i]) && !isBlank(F[f]) {
			refO, refF, haveRef = O[i], F[f], true
		}
	}
	fresh := func(n, o, f string) string {
		if isBlank(n) {
			return ""
		}
		n = reindentRel(n, o, f, tabs)
		if noise {
			n = strings.TrimRight(n, " \t")
		}
		return n
	}

	var out []string
	emitIns := func(i int) {
		for _, j := range ins[i] {
			if asWritten[j] {
				out = append(out, N[j])
			} else {
				out = append(out, fresh(N[j], refO, refF))
			}
		}
	}
	oi, fi := 0, 0
	for i := 0; i <= len(O); i++ {
		if i < len(O) && fOf[i] < 0 {
			continue
		}
		f := len(F)
		if i < len(O) {
			f = fOf[i]
		}
		// Lines of old with no line of the file (between oi and i) and
		// lines of the file old does not show (between fi and f): the
		// file's stay as they are, which is only right if the model left
		// old's there unchanged.
		for k := oi; k < i; k++ {
			if keptAs[k] < 0 || (k > oi && len(ins[k]) > 0) {
				return "", false
			}
		}
		if oi < i {
			emitIns(oi)
		}
		out = append(out, F[fi:f]...)
		emitIns(i)
		if i == len(O) {
			break
		}
		switch {
		case keptAs[i] >= 0:
			out = append(out, F[f])
		case replacedBy[i] >= 0:
			n := N[replacedBy[i]]
			switch {
			case asWritten[replacedBy[i]]:
				out = append(out, n)
			case isBlank(O[i]):
				// A blank line says nothing of indentation: the lines
				// around it do.
				out = append(out, fresh(n, refO, refF))
			default:
				if l, ok := transplantLine(O[i], n, F[f], noise); ok {
					out = append(out, l)
				} else {
					out = append(out, fresh(n, O[i], F[f]))
				}
			}
		}
		if !isBlank(O[i]) && !isBlank(F[f]) {
			refO, refF = O[i], F[f]
		}
		oi, fi = i+1, f+1
	}
	if len(out) == 0 {
		return "", true
	}
	rep = strings.Join(out, "\n")
	if newNL && (spanNL || !oldNL) {
		rep += "\n"
	}
	return rep, true
}

// The form of new_string's lines. A model may write new_string in the
// form it quoted old_string (indentation, blanks and tokens as it
// misremembered them) or in the file's own form (having quoted old from a
// faulty memory, it copies new from the file). A line of the first form
// is carried onto the file's line; one of the second is the file's
// already, and carrying it again would shift it (a block dedented by the
// two columns old_string had too many).
const (
	formUnknown = iota
	formFile
	formModel
)

// newForms decides, for each line of N (new_string's), whether it is
// taken as written (the file's form) or carried onto the file (the
// model's form), from evidence line by line. A kept line equal to the
// file's line and not to old's is the file's form; equal to old's and not
// the file's, the model's. A changed line is the form of whichever of
// old's line and the file's it shares more text with (at its ends). Lines
// without evidence of their own (inserted lines, lines equally like both)
// take the form of the nearest line above that has it, else below; with
// none at all they are taken as written.
func newForms(O, N, F []string, fOf, keptAs, replacedBy []int) []bool {
	form := make([]int, len(N))
	for i, j := range keptAs {
		if j < 0 || fOf[i] < 0 {
			continue
		}
		f := F[fOf[i]]
		switch {
		case N[j] == f && N[j] != O[i]:
			form[j] = formFile
		case N[j] == O[i] && N[j] != f:
			form[j] = formModel
		}
	}
	for i, j := range replacedBy {
		if j < 0 || fOf[i] < 0 || isBlank(N[j]) {
			continue
		}
		byFile, byOld := sharedEnds(F[fOf[i]], N[j]), sharedEnds(O[i], N[j])
		switch {
		case byFile > byOld:
			form[j] = formFile
		case byOld > byFile:
			form[j] = formModel
		}
	}
	out := make([]bool, len(N))
	for j := range N {
		f := form[j]
		for k := j - 1; f == formUnknown && k >= 0; k-- {
			f = form[k]
		}
		for k := j + 1; f == formUnknown && k < len(N); k++ {
			f = form[k]
		}
		out[j] = f != formModel
	}
	return out
}

// sharedEnds is how many bytes a and b share at their start and end.
func sharedEnds(a, b string) int {
	p := commonPrefix(a, b)
	return p + commonSuffix(a[p:], b[p:])
}

// alignLines says which line of F (the file's) each line of O (old_string's)
// stands for, or -1. First lines alike but for whitespace that sit at the
// same depth in their block (so that of two "}" the right one is taken);
// then, between those, lines alike but for whitespace; then, between
// those, runs of equal length line for line (lines the model
// misremembered). Never by position alone: a layer's span may start or end
// a line off.
func alignLines(O, F []string) []int {
	fOf := fill(len(O), -1)
	oKeys, fKeys := keys(O), keys(F)
	// Depth is measured from the first line, which every layer matched;
	// from the second if the first was copied without its indentation.
	oRef, fRef := nextNonBlank(O, 0), nextNonBlank(F, 0)
	if oRef >= 0 && fRef >= 0 && leadingWS(O[oRef]) == "" && leadingWS(F[fRef]) != "" {
		oRef, fRef = nextNonBlank(O, oRef+1), nextNonBlank(F, fRef+1)
	}
	oDeep, fDeep := depthKeys(O, oKeys, oRef), depthKeys(F, fKeys, fRef)
	var align func(o0, o1, f0, f1 int, tiers []func(i, j int) bool)
	align = func(o0, o1, f0, f1 int, tiers []func(i, j int) bool) {
		if len(tiers) == 0 {
			if o1-o0 == f1-f0 {
				for t := 0; t < o1-o0; t++ {
					fOf[o0+t] = f0 + t
				}
			}
			return
		}
		eq := tiers[0]
		pairs := lcsPairs(o1-o0, f1-f0, func(i, j int) bool { return eq(o0+i, f0+j) })
		oi, fi := o0, f0
		for _, p := range append(pairs, [2]int{o1 - o0, f1 - f0}) {
			align(oi, o0+p[0], fi, f0+p[1], tiers[1:])
			if o0+p[0] < o1 {
				fOf[o0+p[0]] = f0 + p[1]
			}
			oi, fi = o0+p[0]+1, f0+p[1]+1
		}
	}
	align(0, len(O), 0, len(F), []func(i, j int) bool{
		func(i, j int) bool { return oDeep[i] == fDeep[j] },
		func(i, j int) bool { return oKeys[i] == fKeys[j] },
	})
	return fOf
}

// depthKeys are keys prefixed with the line's indentation relative to line
// ref of ls: the same for a block re-indented whole or with tabs for
// spaces. Without a reference line they are all empty (nothing matches).
func depthKeys(ls, ks []string, ref int) []string {
	out := make([]string, len(ls))
	if ref < 0 {
		return out
	}
	base := indentWidth(ls[ref])
	for i, l := range ls {
		if ks[i] != "" {
			out[i] = strconv.Itoa(indentWidth(l)-base) + "|" + ks[i]
		}
	}
	return out
}

func nextNonBlank(ls []string, from int) int {
	for i := from; i < len(ls); i++ {
		if !isBlank(ls[i]) {
			return i
		}
	}
	return -1
}

// transplantLine carries the change from o to n (one line of old and new)
// onto f, the file's line that o stands for: the text around the change is
// the file's, found by comparing whitespace-insensitively. ok is false when
// that cannot be done: the change is to indentation or whitespace only, the
// text around it is not f's, or the line is too long to search.
func transplantLine(o, n, f string, noise bool) (string, bool) {
	if o == f {
		return n, true
	}
	if len(f) > maxTransplantLine {
		return "", false
	}
	// The unchanged prefix and suffix, cut where whitespace runs start and
	// end: blanks next to the change belong to it.
	p := commonPrefix(o, n)
	s := commonSuffix(o[p:], n[p:])
	for p > 0 && isSpaceByte(o[p-1]) {
		p--
	}
	for s > 0 && isSpaceByte(o[len(o)-s]) {
		s--
	}
	if p <= len(leadingWS(o)) || p <= len(leadingWS(n)) {
		return "", false
	}
	oMid, nMid := o[p:len(o)-s], n[p:len(n)-s]
	if isBlank(oMid) && isBlank(nMid) {
		return "", false
	}
	km := key(oMid)
	fps, fes := prefixCuts(f, key(o[:p])), suffixCuts(f, key(o[len(o)-s:]))
	if len(fps)*len(fes) > 256 {
		return "", false
	}
	bfp, bfe, bestScore := -1, -1, -1
	for _, fp := range fps {
		for _, fe := range fes {
			if fe < fp || key(f[fp:fe]) != km {
				continue
			}
			// Among places that differ only in where a run of blanks is
			// cut, prefer the one that takes whole runs.
			score := 0
			if fp == 0 || !isSpaceByte(f[fp-1]) {
				score++
			}
			if fe == len(f) || !isSpaceByte(f[fe]) {
				score++
			}
			if score > bestScore {
				bfp, bfe, bestScore = fp, fe, score
			}
		}
	}
	if bfp < 0 {
		return "", false
	}
	if !isBlank(f[bfe:]) {
		return f[:bfp] + nMid + f[bfe:], true
	}
	// The line ends as new_string's does (less blanks that were noise).
	tail := trailingWS(n)
	if noise {
		tail = ""
	}
	return strings.TrimRight(f[:bfp]+nMid, " \t") + tail, true
}

// maxTransplantLine bounds the lines transplantLine searches; longer
// changed lines are taken as new_string has them.
const maxTransplantLine = 4000

// prefixCuts are the offsets i of f with key(f[:i]) == k: the end of the
// text k stands for, and the blanks after it.
func prefixCuts(f, k string) []int {
	kf, at := keyMap(f)
	if k == "" {
		return spanTo(0, len(f)-len(strings.TrimLeft(f, " \t\r\n\f\v")))
	}
	if !strings.HasPrefix(kf, k) {
		return nil
	}
	i := at[len(k)-1] + runeLenAt(f, at[len(k)-1])
	return spanTo(i, i+len(f[i:])-len(strings.TrimLeft(f[i:], " \t\r\n\f\v")))
}

// suffixCuts are the offsets i of f with key(f[i:]) == k.
func suffixCuts(f, k string) []int {
	kf, at := keyMap(f)
	if k == "" {
		return spanTo(len(strings.TrimRight(f, " \t\r\n\f\v")), len(f))
	}
	if !strings.HasSuffix(kf, k) {
		return nil
	}
	i := at[len(kf)-len(k)]
	return spanTo(len(strings.TrimRight(f[:i], " \t\r\n\f\v")), i)
}

// keyMap is key(f) and, for each of its bytes, the offset in f it came
// from.
func keyMap(f string) (string, []int) {
	lead := len(f) - len(strings.TrimLeft(f, " \t\r\n\f\v"))
	trimmed := strings.TrimRight(f[lead:], " \t\r\n\f\v")
	var at []int
	k := collapse(trimmed, &at)
	for i := range at {
		at[i] += lead
	}
	return k, at
}

func spanTo(from, to int) []int {
	s := make([]int, 0, to-from+1)
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func keys(ls []string) []string {
	ks := make([]string, len(ls))
	for i, l := range ls {
		ks[i] = key(l)
	}
	return ks
}

// reindentRel gives n, a line of new_string, the indentation it would have
// in the file: o is a nearby line of old_string and f the file's line it
// stands for, so n keeps its indentation relative to o, rebuilt on f's.
func reindentRel(n, o, f string, tabs bool) string {
	ws, ow, fw := leadingWS(n), leadingWS(o), leadingWS(f)
	var ind string
	if strings.HasPrefix(ws, ow) {
		// Deeper than o by rest, in the file's style (a rest that already
		// holds a tab is taken to be in it).
		rest := ws[len(ow):]
		if !tabs {
			rest = strings.ReplaceAll(rest, "\t", "    ")
		} else if !strings.Contains(rest, "\t") {
			rest = strings.ReplaceAll(rest, "    ", "\t")
		}
		ind = fw + rest
	} else {
		ind = renderIndent(max(0, indentWidth(fw)+indentWidth(ws)-indentWidth(ow)), tabs)
	}
	return ind + n[len(ws):]
}

func renderIndent(w int, tabs bool) string {
	if tabs {
		return strings.Repeat("\t", w/4) + strings.Repeat(" ", w%4)
	}
	return strings.Repeat(" ", w)
}

// indentStyle says whether lines indent with tabs; def() when none is
// indented.
func indentStyle(ls []string, def func() bool) bool {
	spaces := false
	for _, l := range ls {
		ws := leadingWS(l)
		if strings.Contains(ws, "\t") {
			return true
		}
		if ws != "" {
			spaces = true
		}
	}
	if spaces {
		return false
	}
	return def()
}

// bodyUsesTabs says whether more of body's lines start with a tab than
// with a space.
func bodyUsesTabs(body string) bool {
	t, s := strings.Count(body, "\n\t"), strings.Count(body, "\n ")
	if strings.HasPrefix(body, "\t") {
		t++
	} else if strings.HasPrefix(body, " ") {
		s++
	}
	return t > s
}

// key is a line as whitespace-forgiving comparisons see it: runs of blanks
// as one space, none at either end.
func key(s string) string { return collapse(strings.Trim(s, " \t\r\n\f\v"), nil) }

// keyEquals says whether key(s) == k, without building key(s).
func keyEquals(s, k string) bool {
	i, j := 0, 0
	for i < len(s) && isBlankByte(s[i]) {
		i++
	}
	for i < len(s) {
		if isBlankByte(s[i]) {
			for i < len(s) && isBlankByte(s[i]) {
				i++
			}
			if i == len(s) {
				break // trailing blanks
			}
			if j >= len(k) || k[j] != ' ' {
				return false
			}
			j++
			continue
		}
		if j >= len(k) || k[j] != s[i] {
			return false
		}
		i++
		j++
	}
	return j == len(k)
}

func isBlankByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func trailingWS(s string) string { return s[len(strings.TrimRight(s, " \t\r")):] }

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' }

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// lcsMaxCells bounds the table of lcsPairs; past it, the unequal middle of
// two texts is left unaligned.
const lcsMaxCells = 1 << 20

// lcsPairs returns the index pairs (i, j) of a longest common subsequence
// of a[0:n] and b[0:m] under eq, in order. Equal leading and trailing lines
// are paired first, so typical edits need a small table.
func lcsPairs(n, m int, eq func(i, j int) bool) [][2]int {
	var pairs [][2]int
	lo := 0
	for lo < n && lo < m && eq(lo, lo) {
		pairs = append(pairs, [2]int{lo, lo})
		lo++
	}
	hiA, hiB := n, m
	for hiA > lo && hiB > lo && eq(hiA-1, hiB-1) {
		hiA--
		hiB--
	}
	da, db := hiA-lo, hiB-lo
	if da > 0 && db > 0 && da*db <= lcsMaxCells {
		w := db + 1
		t := make([]int32, (da+1)*w)
		for i := da - 1; i >= 0; i-- {
			for j := db - 1; j >= 0; j-- {
				if eq(lo+i, lo+j) {
					t[i*w+j] = 1 + t[(i+1)*w+j+1]
				} else {
					t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
				}
			}
		}
		for i, j := 0, 0; i < da && j < db; {
			switch {
			case eq(lo+i, lo+j):
				pairs = append(pairs, [2]int{lo + i, lo + j})
				i++
				j++
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				i++
			default:
				j++
			}
		}
	}
	for k := 0; hiA+k < n; k++ {
		pairs = append(pairs, [2]int{hiA + k, hiB + k})
	}
	return pairs
}
