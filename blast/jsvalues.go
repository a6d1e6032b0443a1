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

// jsMention is where a file names an identifier: its line, and the
// tokens around it ("" none).
type jsMention struct {
	line       int
	prev, next string
}

// words is where the file p names each identifier outside strings and
// comments, import lines aside; read once.
func (j *jsTests) words(p string) map[string][]jsMention {
	if w, ok := j.wordIndex[p]; ok {
		return w
	}
	w := map[string][]jsMention{}
	if j.wordIndex == nil {
		j.wordIndex = map[string]map[string][]jsMention{}
	}
	j.wordIndex[p] = w
	src, err := j.read(p)
	if err != nil {
		return nil
	}
	lines := strings.Split(string(src), "\n")
	add := func(word string, m jsMention) {
		if m.line < 1 || m.line > len(lines) || jsImportText.MatchString(lines[m.line-1]) {
			return
		}
		w[word] = append(w[word], m)
	}
	toks, ok := jsTokens(string(src))
	if !ok {
		// Every word, in strings and comments too.
		for i, line := range lines {
			for _, word := range jsWord.FindAllString(line, -1) {
				add(word, jsMention{line: i + 1})
			}
		}
		return w
	}
	exported := jsExported(toks)
	for i, t := range toks {
		if t.kind != 'n' || exported[i] {
			continue
		}
		m := jsMention{line: t.line}
		if i > 0 {
			m.prev = toks[i-1].text
			if m.prev == "." && i > 1 {
				m.prev = toks[i-2].text + "."
			}
		}
		if i+1 < len(toks) {
			m.next = toks[i+1].text
		}
		add(t.text, m)
	}
	return w
}

// aliases says whether a mention in code outside every function may give
// d another name or hand it on: d itself not called (d, not d(), not a
// key d:), or, for a method, written after its class (Type.create) or
// this (a class field).
func aliases(d codegraph.Def, m jsMention) bool {
	if m.next == "(" || m.next == ":" || m.next == "?." {
		return false
	}
	if strings.HasSuffix(m.prev, ".") {
		// Type.create, or a class field naming a method of its own
		// (spa = this.safeParseAsync).
		return d.Type != "" && (m.prev == d.Type+"." || m.prev == "this.")
	}
	return true
}

// values selects, for a JavaScript function or method the change reaches
// or changes, the tests that name it in the files importing its file,
// directly or not, and in its own: the graph follows calls, and a
// function passed as a value (checks('sum', add), [1].map(add)) or
// given another name (const string = ZodString.create) is not one to it.
// In a test file, a test naming it is selected (cautiously: the name
// alone says it), and a name outside every test (a helper, the top
// level) selects the file; in another file, a name outside every
// function selects what can use that file, as a changed top-level line
// does.
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
		f := j.head[t]
		if f == nil {
			continue
		}
		for _, m := range j.words(t)[d.Name] {
			line := m.line
			by := fmt.Sprintf("%s:%d names %s, which the change reaches (%s), not only in calls the graph follows", t, line, d.Qual(), why)
			in := innermost(f, line)
			switch {
			case !j.testFiles[t]:
				// Named outside every function (const parse = Schema.create,
				// a table of handlers): what uses the file may call it by
				// another name.
				if (in == nil || !isFunc(*in)) && aliases(d, m) {
					s.wide(t, false, by)
				}
			case in != nil && in.Test:
				j.add(s, *in, false, by)
			default:
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
	lines := j.fileLines(d.Path)
	if lines == nil {
		return true
	}
	return d.Start >= 1 && d.Start <= len(lines) && jsAccessor.MatchString(lines[d.Start-1])
}

// fileLines is the lines of the head file p, read once; nil when it
// cannot be read.
func (j *jsTests) fileLines(p string) []string {
	lines, ok := j.lines[p]
	if !ok {
		if src, err := j.read(p); err == nil {
			lines = strings.Split(string(src), "\n")
		}
		if j.lines == nil {
			j.lines = map[string][]string{}
		}
		j.lines[p] = lines
	}
	return lines
}

// jsExported marks the tokens of export statements (export { a, b },
// export default a, module.exports = { a }, exports.a = a): an export
// hands a name on under its own, which the graph follows through the
// importers' imports.
func jsExported(toks []jsToken) map[int]bool {
	out := map[int]bool{}
	text := func(i int) string {
		if i < len(toks) {
			return toks[i].text
		}
		return ""
	}
	for i := 0; i < len(toks); i++ {
		start := -1
		switch {
		case text(i) == "export" && (text(i+1) == "{" || text(i+1) == "default"):
			start = i + 1
		case text(i) == "module" && text(i+1) == "." && text(i+2) == "exports" && text(i+3) == "=":
			start = i + 4
		case text(i) == "exports" && text(i+1) == "." && text(i+3) == "=" && (i == 0 || text(i-1) != "."):
			start = i + 4
		}
		if start < 0 || start >= len(toks) {
			continue
		}
		end := start
		if text(start) == "{" {
			depth := 0
			for end = start; end < len(toks); end++ {
				if text(end) == "{" {
					depth++
				} else if text(end) == "}" {
					if depth--; depth == 0 {
						break
					}
				}
			}
		} else {
			for end < len(toks)-1 && toks[end+1].line == toks[start].line && text(end+1) != ";" {
				end++
			}
		}
		for k := i; k <= end && k < len(toks); k++ {
			out[k] = true
		}
		i = end
	}
	return out
}
