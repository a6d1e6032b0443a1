package confirm

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"cchub/codegraph"
	"cchub/lspmux"
)

// pyEdge judges a Python call whose definition is not the callee. A
// method call may reach an override in any subclass of the class it
// resolves to, so a method of another class refutes only when the
// callee's class does not derive from it.
func (c *confirmer) pyEdge(ctx context.Context, e codegraph.Edge, def *lspmux.Answer, at func(string) (*lspmux.Answer, error)) (string, string) {
	hv, err := at("hover")
	if err != nil {
		return "", c.why(ctx, e.Path, err)
	}
	sig := signature(hv.Text)
	kind := ""
	if strings.HasPrefix(sig, "(") {
		if i := strings.IndexByte(sig, ')'); i > 0 {
			kind = sig[1:i]
		}
	}
	switch kind {
	case "class":
		return codegraph.Refuted, "" // a constructor: no dispatch
	case "function", "method":
	default:
		return "", whyValue
	}
	if e.Callee.Type == "" {
		// A function (or class) of the callee's name cannot be reached
		// through a call that resolves to another definition.
		return codegraph.Refuted, ""
	}
	// The class of what the call resolves to: outside the workspace, or
	// the class holding the definition.
	var target *codegraph.Def
	if len(def.Locations) > 0 {
		l := def.Locations[0]
		target = c.enclosing(l.Path, l.Line, "class", "")
		if target == nil {
			if kind == "method" {
				return "", whyDispatch // a method the graph does not place
			}
			return codegraph.Refuted, "" // a module's function
		}
	}
	own := c.enclosing(e.Callee.Path, e.Callee.Start, "class", e.Callee.Type)
	if own == nil {
		return "", whyDispatch
	}
	if target != nil && target.Path == own.Path && target.Start == own.Start {
		return "", whyDispatch // another definition in the callee's own class
	}
	anc := c.pyAncestry(ctx, own)
	if !anc.known {
		if ctx.Err() != nil {
			return "", errOutOfTime
		}
		return "", whyDispatch
	}
	if target == nil {
		if anc.outside {
			return "", whyDispatch // it may derive from that library class
		}
		return codegraph.Refuted, ""
	}
	if anc.classes[defID(target)] {
		return "", whyDispatch
	}
	if c.pyProtocol(target) {
		return "", whyDispatch
	}
	return codegraph.Refuted, ""
}

// classAncestry is what a Python class derives from: the workspace's
// classes by defID, whether any base is outside the workspace, and
// whether every base was found.
type classAncestry struct {
	classes map[string]bool
	outside bool
	known   bool
}

func defID(d *codegraph.Def) string { return fmt.Sprintf("%s:%d", d.Path, d.Start) }

// pyAncestry follows the bases of class cls through the server's
// definitions, up to 32 classes.
func (c *confirmer) pyAncestry(ctx context.Context, cls *codegraph.Def) *classAncestry {
	c.mu.Lock()
	if a := c.ancestry[defID(cls)]; a != nil {
		c.mu.Unlock()
		return a
	}
	c.mu.Unlock()
	a := &classAncestry{classes: map[string]bool{}, known: true}
	todo := []*codegraph.Def{cls}
	seen := map[string]bool{defID(cls): true}
	for len(todo) > 0 && a.known {
		if len(seen) > 32 {
			a.known = false
			break
		}
		d := todo[0]
		todo = todo[1:]
		b, err := c.batch(ctx, d.Path)
		if err != nil {
			a.known = false
			break
		}
		for _, base := range pyBases(b.Text(), d) {
			ans, err := b.Query(ctx, lspmux.Query{Op: "definition", Line: base.line, Col: base.col})
			if err != nil || len(ans.Locations)+len(ans.Outside) == 0 {
				a.known = false
				break
			}
			if len(ans.Outside) > 0 {
				a.outside = true
			}
			for _, l := range ans.Locations {
				up := c.enclosing(l.Path, l.Line, "class", base.name)
				if up == nil {
					a.known = false // an alias, or what the graph does not hold
					break
				}
				if id := defID(up); !seen[id] {
					seen[id] = true
					a.classes[id] = true
					todo = append(todo, up)
				}
			}
		}
	}
	if ctx.Err() == nil {
		c.mu.Lock()
		c.ancestry[defID(cls)] = a
		c.mu.Unlock()
	}
	return a
}

// pyProtocol says whether class d names Protocol among its bases: any
// class of the same shape is one, whatever it derives from.
func (c *confirmer) pyProtocol(d *codegraph.Def) bool {
	text, err := c.root.ReadText(d.Path)
	if err != nil {
		return true // not known: the cautious answer
	}
	for _, b := range pyBases(text, d) {
		if b.name == "Protocol" {
			return true
		}
	}
	return false
}

// pyBase is one base class named in a class statement: its last name
// (Protocol in typing.Protocol) and where that name is.
type pyBase struct {
	name      string
	line, col int // 1-based; col in characters
}

// pyBases reads the bases of the class statement of d in text: the
// parenthesised list after its name, keyword arguments (metaclass=…) and
// unpacked ones left out, subscripts (Generic[T]) cut.
func pyBases(text []byte, d *codegraph.Def) []pyBase {
	starts := []int{0}
	for i, ch := range text {
		if ch == '\n' {
			starts = append(starts, i+1)
		}
	}
	if d.Start < 1 || d.Start > len(starts) {
		return nil
	}
	s := string(text)
	off := starts[d.Start-1]
	i := lspmux.IdentIndex(s[off:], "class")
	if i < 0 {
		return nil
	}
	off += i + len("class")
	j := lspmux.IdentIndex(s[off:], d.Name)
	if j < 0 {
		return nil
	}
	off += j + len(d.Name)
	skip := func() {
		for off < len(s) && (s[off] == ' ' || s[off] == '\t') {
			off++
		}
	}
	skip()
	if off < len(s) && s[off] == '[' { // type parameters (3.12)
		off = closing(s, off)
		skip()
	}
	if off >= len(s) || s[off] != '(' {
		return nil
	}
	end := closing(s, off)
	var out []pyBase
	depth, from := 0, off+1
	for k := off + 1; k < end; k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				if b, ok := pyBaseAt(s, from, k, starts); ok {
					out = append(out, b)
				}
				from = k + 1
			}
		}
	}
	if b, ok := pyBaseAt(s, from, end-1, starts); ok {
		out = append(out, b)
	}
	return out
}

// pyBaseAt reads the base written in s[from:to].
func pyBaseAt(s string, from, to int, starts []int) (pyBase, bool) {
	if to <= from {
		return pyBase{}, false
	}
	part := s[from:to]
	if strings.ContainsAny(part, "=*") {
		return pyBase{}, false
	}
	if k := strings.IndexByte(part, '['); k >= 0 {
		part = part[:k]
	}
	end := len(strings.TrimRight(part, " \t\r\n"))
	begin := end
	for begin > 0 && lspmux.IsIdentByte(part[begin-1]) {
		begin--
	}
	if begin == end {
		return pyBase{}, false
	}
	abs := from + begin
	line := sort.Search(len(starts), func(i int) bool { return starts[i] > abs })
	col := utf8.RuneCountInString(s[starts[line-1]:abs]) + 1
	return pyBase{name: part[begin:end], line: line, col: col}, true
}

// closing is the offset just past the bracket that closes the one at
// s[open].
func closing(s string, open int) int {
	depth := 0
	for k := open; k < len(s); k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return len(s)
}
