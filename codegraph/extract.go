package codegraph

import (
	"context"
	"crypto/sha256"
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/outline"
	"cchub/workspace"
)

// Def is a definition: a function, a method (with its receiver's or
// class's type), a type or class.
type Def struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"` // a method's receiver type or class
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Start    int    `json:"start_line"`
	End      int    `json:"end_line"`
	Test     bool   `json:"test,omitempty"` // a test function
	Language string `json:"language"`
	recv     string // a Go method's receiver variable
}

// Qual is the definition's qualified name: Type.Name for a method, the
// name otherwise.
func (d *Def) Qual() string {
	if d.Type != "" {
		return d.Type + "." + d.Name
	}
	return d.Name
}

// Call is a call site: the name called, what it was called on (a package
// alias, a module, a value: "" for a bare name), and the definition it
// is in (an index into its file's Defs, -1 at top level).
type Call struct {
	Name      string `json:"name"`
	Qualifier string `json:"qualifier,omitempty"`
	Line      int    `json:"line"`
	Col       int    `json:"col"`
	In        int    `json:"-"`
}

// Import is one name a file imports: the name it is known by in the file
// and what it names (a Go package path; a Python module, or module.name).
type Import struct {
	Alias  string
	Target string
}

// File is what a file holds for the graph.
type File struct {
	Path     string
	Language string
	Defs     []Def
	Calls    []Call
	Imports  []Import
	hash     [32]byte
}

//go:embed queries/*.scm
var queryFiles embed.FS

// queries are compiled once per language.
var queries sync.Map // language name → *sitter.Query or error

func queryFor(lang *workspace.Language) (*sitter.Query, error) {
	name := lang.Name
	if name == "tsx" {
		name = "typescript"
	}
	if q, ok := queries.Load(lang.Name); ok {
		if err, isErr := q.(error); isErr {
			return nil, err
		}
		return q.(*sitter.Query), nil
	}
	src, err := queryFiles.ReadFile("queries/" + name + ".scm")
	if err != nil {
		return nil, fmt.Errorf("codegraph: no queries for %s", lang.Name)
	}
	q, err := sitter.NewQuery(src, lang.Grammar)
	if err != nil {
		err = fmt.Errorf("codegraph: queries for %s: %w", lang.Name, err)
		queries.Store(lang.Name, err)
		return nil, err
	}
	actual, _ := queries.LoadOrStore(lang.Name, q)
	return actual.(*sitter.Query), nil
}

// Supported says whether the graph reads files of lang.
func Supported(lang *workspace.Language) bool {
	if lang == nil {
		return false
	}
	_, err := queryFiles.ReadFile("queries/" + strings.Replace(lang.Name, "tsx", "typescript", 1) + ".scm")
	return err == nil
}

// extract reads the definitions, calls and imports of a parsed file.
func extract(ctx context.Context, rel string, tree *workspace.Tree) (*File, error) {
	f := &File{Path: rel, Language: tree.Lang.Name}
	o := outline.OfTree(tree)
	var walk func(syms []*outline.Symbol, class string)
	walk = func(syms []*outline.Symbol, class string) {
		for _, s := range syms {
			switch s.Kind {
			case "func", "method":
				d := Def{Name: s.Name, Kind: s.Kind, Path: rel, Start: s.StartLine, End: s.EndLine, Language: f.Language}
				if s.Kind == "method" {
					d.Type = receiverType(s.Receiver, class)
					if f := strings.Fields(strings.Trim(s.Receiver, "()")); len(f) == 2 {
						d.recv = f[0]
					}
				}
				d.Test = isTest(d, rel)
				f.Defs = append(f.Defs, d)
			case "class", "struct", "interface", "type", "enum", "trait":
				if s.Name != "" {
					f.Defs = append(f.Defs, Def{Name: s.Name, Kind: s.Kind, Path: rel, Start: s.StartLine, End: s.EndLine, Language: f.Language})
				}
				walk(s.Children, s.Name)
				continue
			}
			walk(s.Children, class)
		}
	}
	walk(o.Symbols, "")
	q, err := queryFor(tree.Lang)
	if err != nil {
		return nil, err
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(q, tree.RootNode())
	src := tree.Source
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m, ok := qc.NextMatch()
		if !ok {
			break
		}
		var c Call
		var imp Import
		var from string
		isCall, isImport := false, false
		for _, cp := range m.Captures {
			text := cp.Node.Content(src)
			switch q.CaptureNameForId(cp.Index) {
			case "call":
				isCall = true
				p := cp.Node.StartPoint()
				c.Line, c.Col = int(p.Row)+1, int(p.Column)+1
			case "name":
				c.Name = text
				p := cp.Node.StartPoint()
				c.Line, c.Col = int(p.Row)+1, int(p.Column)+1
			case "qualifier":
				c.Qualifier = text
			case "import":
				isImport = true
				imp.Target = strings.Trim(text, "\"`")
			case "alias":
				imp.Alias = text
			case "from":
				from = text
			}
		}
		switch {
		case isCall && c.Name != "":
			c.In = f.enclosing(c.Line)
			f.Calls = append(f.Calls, c)
		case isImport:
			if from != "" {
				if imp.Alias == "" {
					imp.Alias = imp.Target
				}
				imp.Target = strings.TrimLeft(from, ".") + "." + imp.Target
			} else if imp.Alias == "" {
				imp.Alias = defaultAlias(f.Language, imp.Target)
			}
			f.Imports = append(f.Imports, imp)
		}
	}
	return f, nil
}

// enclosing is the innermost function or method of f holding line, or -1.
func (f *File) enclosing(line int) int {
	best := -1
	for i, d := range f.Defs {
		if (d.Kind == "func" || d.Kind == "method") && d.Start <= line && line <= d.End {
			if best < 0 || d.Start >= f.Defs[best].Start {
				best = i
			}
		}
	}
	return best
}

// receiverType is a Go receiver's type name ("(s *Store)" → Store), or
// the class a Python method is in.
func receiverType(recv, class string) string {
	if recv == "" {
		return class
	}
	r := strings.Trim(recv, "()")
	if i := strings.LastIndexAny(r, " *"); i >= 0 {
		r = r[i+1:]
	}
	if i := strings.IndexByte(r, '['); i >= 0 {
		r = r[:i]
	}
	return r
}

// defaultAlias is the name an import without an alias is known by: a Go
// package's last path element; a Python module's whole dotted name.
func defaultAlias(lang, target string) string {
	if lang == "go" {
		return path.Base(target)
	}
	return target
}

// isTest says whether d is a test function: Go TestXxx in a _test.go
// file, Python test_* (or a method of a Test* class).
func isTest(d Def, rel string) bool {
	switch d.Language {
	case "go":
		return strings.HasSuffix(rel, "_test.go") && d.Type == "" && strings.HasPrefix(d.Name, "Test")
	case "python":
		return strings.HasPrefix(d.Name, "test_") || strings.HasPrefix(d.Name, "test") && strings.HasPrefix(d.Type, "Test")
	}
	return strings.HasPrefix(d.Name, "test")
}

// Extract reads what the graph needs of one file's content, named rel,
// without the workspace: for a revision read from git, say. It returns
// nil, nil for a language the graph does not read.
func Extract(ctx context.Context, cache *workspace.ParseCache, rel string, src []byte) (*File, error) {
	lang := workspace.LanguageFor(rel)
	if !Supported(lang) {
		return nil, nil
	}
	tree, err := cache.ParseUncached(ctx, lang, src)
	if err != nil {
		return nil, err
	}
	defer tree.Release()
	f, err := extract(ctx, rel, tree)
	if err != nil {
		return nil, err
	}
	f.hash = sha256.Sum256(src)
	return f, nil
}
