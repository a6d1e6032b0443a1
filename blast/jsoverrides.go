package blast

import (
	"regexp"
	"strings"

	"cchub/codegraph"
	"cchub/lang"
)

// overrider is a runner whose language dispatches a call to an override
// the code graph does not link: in JavaScript, this._parse() in a base
// class's method runs a subclass's _parse, and the graph links it to the
// base class's own (or abstract) _parse. For a changed or reached method
// it names the methods it overrides (path:Type.Name), whose callers can
// reach it; the selector follows them, cautiously.
type overrider interface {
	overridden(d codegraph.Def) []string
}

// jsExtends reads the class a class declaration extends: class A<T>
// extends B<T>, class A extends ns.B.
var jsExtends = regexp.MustCompile(`\bclass\s+[\p{L}_$][\p{L}\p{N}_$]*\s*(?:<[^{]*?>)?\s*extends\s+([\p{L}_$][\p{L}\p{N}_$.]*)`)

// overridden names the methods of d's name in the classes d's class
// extends, directly or not, as the graph names them.
func (j *jsTests) overridden(d codegraph.Def) []string {
	if lang.Family(d.Language) != lang.JavaScript || d.Kind != "method" || d.Type == "" || d.Name == "constructor" {
		return nil
	}
	if j.classes == nil {
		j.classes, j.methods = map[string][]codegraph.Def{}, map[string][]codegraph.Def{}
		for _, f := range j.head {
			if lang.Family(f.Language) != lang.JavaScript {
				continue
			}
			for _, def := range f.Defs {
				switch {
				case def.Kind == "class":
					j.classes[def.Name] = append(j.classes[def.Name], def)
				case def.Kind == "method" && def.Type != "":
					j.methods[def.Type+"."+def.Name] = append(j.methods[def.Type+"."+def.Name], def)
				}
			}
		}
	}
	var out []string
	seen := map[string]bool{d.Type: true}
	queue := []string{d.Type}
	for len(queue) > 0 {
		class := queue[0]
		queue = queue[1:]
		for _, c := range j.classes[class] {
			base := j.extends(c)
			if base == "" || seen[base] {
				continue
			}
			seen[base] = true
			queue = append(queue, base)
			for _, m := range j.methods[base+"."+d.Name] {
				out = append(out, m.Path+":"+m.Qual())
			}
		}
	}
	return out
}

// extends is the class the class c extends, by its last name; "" none.
func (j *jsTests) extends(c codegraph.Def) string {
	lines := j.fileLines(c.Path)
	if c.Start < 1 || c.Start > len(lines) {
		return ""
	}
	head := strings.Join(lines[c.Start-1:min(len(lines), c.Start+3)], " ")
	if i := strings.IndexByte(head, '{'); i >= 0 {
		head = head[:i]
	}
	m := jsExtends.FindStringSubmatch(head)
	if m == nil {
		return ""
	}
	base := m[1]
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	return base
}
