package blast

import (
	"fmt"
	"regexp"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
)

// valueUser is a runner that selects, beyond the calls the graph follows,
// the tests that can use a changed or reached definition some other way
// (JavaScript: a function passed as a value). The selector asks it for
// every changed and reached definition of its family, tests aside.
type valueUser interface {
	values(s *selector, d codegraph.Def, sure bool, why string)
}

// jsWord is a JavaScript identifier.
var jsWord = regexp.MustCompile(`[\p{L}_$][\p{L}\p{N}_$]*`)

// jsImportText is a line that only imports: its names are bindings, not
// uses.
var jsImportText = regexp.MustCompile(`^\s*(import\b|export\s.*\bfrom\b|(const|let|var)\s+[\w${},:\s]+=\s*require\()|^\s*[\w$]+\s*,?\s*$|^\s*}\s*(from\s|=\s*require\()`)

// words is the lines of the test file p where each identifier is
// written outside strings and comments, import lines aside; read once.
func (j *jsTests) words(p string) map[string][]int {
	if w, ok := j.wordIndex[p]; ok {
		return w
	}
	w := map[string][]int{}
	if j.wordIndex == nil {
		j.wordIndex = map[string]map[string][]int{}
	}
	j.wordIndex[p] = w
	src, err := j.read(p)
	if err != nil {
		return nil
	}
	lines := strings.Split(string(src), "\n")
	add := func(word string, line int) {
		if line < 1 || line > len(lines) || jsImportText.MatchString(lines[line-1]) {
			return
		}
		if ls := w[word]; len(ls) == 0 || ls[len(ls)-1] != line {
			w[word] = append(w[word], line)
		}
	}
	toks, ok := jsTokens(string(src))
	if !ok {
		// Every word, in strings and comments too.
		for i, line := range lines {
			for _, word := range jsWord.FindAllString(line, -1) {
				add(word, i+1)
			}
		}
		return w
	}
	for _, t := range toks {
		if t.kind == 'n' {
			add(t.text, t.line)
		}
	}
	return w
}

// values selects, for a JavaScript function or method the change reaches
// or changes, the tests that name it in the test files importing its
// file, directly or not: the graph follows calls, and a function passed
// as a value (checks('sum', add), [1].map(add)) is not one to it. A test
// naming it is selected (cautiously: the name alone says it); a name
// outside every test (a helper, the file's top level) selects the file.
func (j *jsTests) values(s *selector, d codegraph.Def, sure bool, why string) {
	if lang.Family(d.Language) != lang.JavaScript || d.Test || !isFunc(d) || d.Name == "" {
		return
	}
	if j.unseenUses(d) {
		s.wide(d.Path, sure, fmt.Sprintf("%s (%s) is a constructor, getter or setter, used where the code graph sees no call: %s", d.Qual(), place(d), why))
	}
	if j.valuesDone[d.Path+"\x00"+d.Name] {
		return
	}
	if j.valuesDone == nil {
		j.valuesDone = map[string]bool{}
	}
	j.valuesDone[d.Path+"\x00"+d.Name] = true
	for _, t := range append([]string{d.Path}, j.importers(d.Path)...) {
		if !j.testFiles[t] {
			continue
		}
		for _, line := range j.words(t)[d.Name] {
			by := fmt.Sprintf("%s:%d names %s, which the change reaches (%s), not only in calls the graph follows", t, line, d.Qual(), why)
			if in := innermost(j.head[t], line); in != nil && in.Test {
				j.add(s, *in, false, by)
			} else {
				j.whole(s, t, false, by)
			}
		}
	}
}

// innermost is the definition of f with the narrowest span holding line.
func innermost(f *codegraph.File, line int) *codegraph.Def {
	var best *codegraph.Def
	for i := range f.Defs {
		d := &f.Defs[i]
		if d.Start <= line && line <= d.End && (best == nil || d.End-d.Start < best.End-best.Start) {
			best = d
		}
	}
	return best
}

// jsAccessor is the head of a getter or setter.
var jsAccessor = regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|override|readonly)\s+)*(?:get|set)\s+[\p{L}_$#][\p{L}\p{N}_$]*\s*\(`)

// unseenUses says whether d is used where the graph sees no call of it:
// a class's constructor (new X(), super()), a getter or setter (x.p).
func (j *jsTests) unseenUses(d codegraph.Def) bool {
	if d.Kind != "method" {
		return false
	}
	if d.Name == "constructor" {
		return true
	}
	lines, ok := j.lines[d.Path]
	if !ok {
		src, err := j.read(d.Path)
		if err != nil {
			return true
		}
		lines = strings.Split(string(src), "\n")
		if j.lines == nil {
			j.lines = map[string][]string{}
		}
		j.lines[d.Path] = lines
	}
	return d.Start >= 1 && d.Start <= len(lines) && jsAccessor.MatchString(lines[d.Start-1])
}
