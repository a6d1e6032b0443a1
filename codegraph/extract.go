package codegraph

import (
	"context"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/lang"
	"cchub/outline"
	"cchub/syntax"
)

// Def is a definition: a function, a method (with its receiver's or
// class's type), a type or class, or a JavaScript test block.
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
	key      string // set by resolve: the definition's key in the graph
	dir      string // set by resolve: path.Dir(Path)
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
// is in (an index into its file's Defs, -1 at top level). A Rust or C++
// path keeps its :: ("geo::" in geo::area(), "Stack::" in Stack::new()):
// it names a module, namespace or type, not a value.
type Call struct {
	Name      string `json:"name"`
	Qualifier string `json:"qualifier,omitempty"`
	Line      int    `json:"line"`
	Col       int    `json:"col"`
	In        int    `json:"-"`
	// Ref marks a function or method named as a value, not called there
	// (a callback passed, a field set, a value returned): read by the
	// native readers, linked only where it resolves.
	Ref bool `json:"ref,omitempty"`
}

// Import is one name a file imports: the name it is known by in the file
// and what it names. The Target is, by language: a Go package path; a
// Python module, or module.name; in JavaScript, the name and the module
// as the statement writes them (jsTarget: "f from ./a"; an export,
// which binds no name here, starts with "export"); a Rust use path (Alias
// "*" for a glob); a Java class, package (Alias "*") or static member; a
// C or C++ include path, or "" for a function the file declares without
// defining it (a header's prototype, Alias its name).
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
	Binds    []Bind // type facts (types.go), read by the native readers
	hash     [32]byte
	// parsed: the content was parsed in this process (Extract), and
	// broken says whether its tree has a syntax error; a file decoded
	// from the store does not say.
	parsed, broken bool
}

//go:embed queries/*.scm
var queryFiles embed.FS

// queryIncludes names the query file a language's own starts with: the
// TypeScript grammar extends JavaScript's, and so do its queries.
var queryIncludes = map[string]string{"typescript": "javascript"}

// langQuery is a language's compiled queries and what each pattern says
// besides its shape.
type langQuery struct {
	q      *sitter.Query
	names  []string            // capture names, by index
	checks [][]queryCheck      // by pattern: the #eq? and #match? that must hold
	props  []map[string]string // by pattern: its (#set! key value) properties
}

// queryCheck is one #eq?, #not-eq?, #match? or #not-match? predicate.
type queryCheck struct {
	capture string
	eq      string
	re      *regexp.Regexp // nil: compare with eq
	not     bool
}

// queries are compiled once per language.
var queries sync.Map // language name → *langQuery or error

// queryName is the query file of a language: TSX is TypeScript's.
func queryName(language string) string {
	if language == lang.TSX {
		return "typescript"
	}
	return language
}

func queryFor(language *syntax.Language) (*langQuery, error) {
	if q, ok := queries.Load(language.Name); ok {
		if err, isErr := q.(error); isErr {
			return nil, err
		}
		return q.(*langQuery), nil
	}
	name := queryName(language.Name)
	src, err := queryFiles.ReadFile("queries/" + name + ".scm")
	if err != nil {
		return nil, fmt.Errorf("codegraph: no queries for %s", language.Name)
	}
	if base, ok := queryIncludes[name]; ok {
		b, err := queryFiles.ReadFile("queries/" + base + ".scm")
		if err != nil {
			return nil, fmt.Errorf("codegraph: queries for %s: %w", language.Name, err)
		}
		src = append(append(b, '\n'), src...)
	}
	lq, err := compileQuery(src, language.Grammar)
	if err != nil {
		err = fmt.Errorf("codegraph: queries for %s: %w", language.Name, err)
		queries.Store(language.Name, err)
		return nil, err
	}
	actual, _ := queries.LoadOrStore(language.Name, lq)
	if q, ok := actual.(*langQuery); ok {
		return q, nil
	}
	return nil, actual.(error)
}

// compileQuery compiles src and reads its predicates once, so that a
// match costs no call into the C library to learn them.
func compileQuery(src []byte, grammar *sitter.Language) (*langQuery, error) {
	q, err := sitter.NewQuery(src, grammar)
	if err != nil {
		return nil, err
	}
	lq := &langQuery{q: q}
	for i := uint32(0); i < q.CaptureCount(); i++ {
		lq.names = append(lq.names, q.CaptureNameForId(i))
	}
	n := int(q.PatternCount())
	lq.checks, lq.props = make([][]queryCheck, n), make([]map[string]string, n)
	for i := range n {
		for _, steps := range q.PredicatesForPattern(uint32(i)) {
			if len(steps) < 2 {
				continue
			}
			arg := func(j int) string {
				if j >= len(steps) || steps[j].Type == sitter.QueryPredicateStepTypeDone {
					return ""
				}
				if steps[j].Type == sitter.QueryPredicateStepTypeCapture {
					return q.CaptureNameForId(steps[j].ValueId)
				}
				return q.StringValueForId(steps[j].ValueId)
			}
			switch op := arg(0); op {
			case "set!":
				if lq.props[i] == nil {
					lq.props[i] = map[string]string{}
				}
				lq.props[i][arg(1)] = arg(2)
			case "eq?", "not-eq?":
				lq.checks[i] = append(lq.checks[i], queryCheck{capture: arg(1), eq: arg(2), not: op == "not-eq?"})
			case "match?", "not-match?":
				re, err := regexp.Compile(arg(2))
				if err != nil {
					return nil, fmt.Errorf("pattern %d: %w", i, err)
				}
				lq.checks[i] = append(lq.checks[i], queryCheck{capture: arg(1), re: re, not: op == "not-match?"})
			default:
				return nil, fmt.Errorf("pattern %d: predicate #%s is not one codegraph reads (#eq?, #match?, #set!)", i, op)
			}
		}
	}
	return lq, nil
}

// holds says whether m's captures pass its pattern's predicates.
func (lq *langQuery) holds(m *sitter.QueryMatch, src []byte) bool {
	for _, c := range lq.checks[m.PatternIndex] {
		for _, cp := range m.Captures {
			if lq.names[cp.Index] != c.capture {
				continue
			}
			text := cp.Node.Content(src)
			ok := text == c.eq
			if c.re != nil {
				ok = c.re.MatchString(text)
			}
			if ok == c.not {
				return false
			}
		}
	}
	return true
}

// Indexed says whether the graph reads the file at rel: code of a
// supported language, a go.mod (which says where a Go module's packages
// are), or a TypeScript configuration (where bare module specifiers
// lead: tsconfig.go).
func Indexed(rel string) bool {
	return path.Base(rel) == "go.mod" || isTSConfig(rel) || Supported(syntax.LanguageFor(rel))
}

// goModFile is what the graph keeps of a go.mod: the module path, as an
// import named "module" (no definitions, no calls).
func goModFile(rel string, src []byte) *File {
	f := &File{Path: rel, Language: "go.mod", hash: sha256.Sum256(src)}
	for _, line := range strings.Split(string(src), "\n") {
		fs := strings.Fields(strings.TrimSpace(line))
		if len(fs) >= 2 && fs[0] == "module" {
			f.Imports = []Import{{Alias: "module", Target: strings.Trim(fs[1], "\"`")}}
			break
		}
	}
	return f
}

// Supported says whether the graph reads files of lang.
func Supported(language *syntax.Language) bool {
	if language == nil {
		return false
	}
	_, err := queryFiles.ReadFile("queries/" + queryName(language.Name) + ".scm")
	return err == nil
}

// captured is what one query match captured, by capture name.
type captured struct {
	props                               map[string]string
	call, name, qualifier, path, tokens *sitter.Node
	imp, alias, from, export            *sitter.Node
	test, testFn, testName              *sitter.Node
	definition                          *sitter.Node
	bindName, bindNew                   *sitter.Node
	bindClass, bindBase, bindType       *sitter.Node
}

// extract reads the definitions, calls and imports of a parsed file.
func extract(ctx context.Context, rel string, tree *syntax.Tree) (*File, error) {
	f := &File{Path: rel, Language: tree.Lang.Name}
	f.addDefs(outline.OfTree(tree).Symbols, "")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root := tree.RootNode()
	if nl, ids := nativeFor(tree.Lang.Name, root); nl != nil {
		if nodes, ok := syntax.Flatten(root, ids.fieldsIn); ok {
			defer syntax.ReleaseFlat(nodes)
			nl.read(&flatReader{nodes: nodes, src: tree.Source, ids: ids}, f)
			f.setIn(nil)
			return f, nil
		}
	}
	return extractQuery(ctx, f, tree)
}

// extractQuery reads the calls and imports of a parsed file with its
// language's query.
func extractQuery(ctx context.Context, f *File, tree *syntax.Tree) (*File, error) {
	lq, err := queryFor(tree.Lang)
	if err != nil {
		return nil, err
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	qc.Exec(lq.q, tree.RootNode())
	src := tree.Source
	var bodies []lineSpan // C and C++ functions with a body
	var heads []testHead  // what JavaScript tests call to declare themselves
	var binds []int       // the lines of f.Binds' variables, until setIn
	for i := 0; ; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		m, ok := qc.NextMatch()
		if !ok {
			break
		}
		if len(lq.checks[m.PatternIndex]) > 0 && !lq.holds(m, src) {
			continue
		}
		cp := captured{props: lq.props[m.PatternIndex]}
		for _, c := range m.Captures {
			n := c.Node
			switch lq.names[c.Index] {
			case "call":
				cp.call = n
			case "name":
				cp.name = n
			case "qualifier":
				cp.qualifier = n
			case "path":
				cp.path = n
			case "tokens":
				cp.tokens = n
			case "import":
				cp.imp = n
			case "alias":
				cp.alias = n
			case "from":
				cp.from = n
			case "export":
				cp.export = n
			case "test":
				cp.test = n
			case "test.fn":
				cp.testFn = n
			case "test.name":
				cp.testName = n
			case "definition":
				cp.definition = n
			case "bind.name":
				cp.bindName = n
			case "bind.new":
				cp.bindNew = n
			case "bind.class":
				cp.bindClass = n
			case "bind.base":
				cp.bindBase = n
			case "bind.type":
				cp.bindType = n
			}
		}
		switch {
		case cp.tokens != nil:
			if c, ok := rustTokenCall(cp.name, cp.tokens, src); ok {
				f.Calls = append(f.Calls, c)
			}
		case cp.call != nil:
			if c, ok := readCall(cp, src); ok {
				f.Calls = append(f.Calls, c)
			}
		case cp.test != nil:
			heads = append(heads, newTestHead(len(f.Defs), cp.test.ChildByFieldName("function")))
			f.Defs = append(f.Defs, jsTestDef(f, cp, src))
		case cp.definition != nil:
			bodies = append(bodies, spanOf(cp.definition))
		case cp.bindClass != nil && cp.bindBase != nil:
			if base := jsExtends(cp.bindBase, src); base != "" {
				f.Binds = append(f.Binds, Bind{In: -1, Kind: 'e', Owner: cp.bindClass.Content(src), Expr: ":" + base})
			}
		case cp.bindName != nil && cp.bindNew != nil:
			binds = append(binds, int(cp.bindName.StartPoint().Row)+1)
			f.Binds = append(f.Binds, Bind{Kind: 'v', Name: cp.bindName.Content(src), Expr: "new " + cp.bindNew.Content(src) + "()"})
		case cp.bindName != nil && cp.bindType != nil:
			if t := jsTypeName(cp.bindType.Content(src)); t != "" {
				binds = append(binds, int(cp.bindName.StartPoint().Row)+1)
				f.Binds = append(f.Binds, Bind{Kind: 'v', Name: cp.bindName.Content(src), Expr: ":" + t})
			}
		case cp.imp != nil || cp.alias != nil:
			f.Imports = append(f.Imports, f.readImports(cp, src)...)
		}
	}
	if lang.Family(f.Language) == "c" {
		f.keepDefinitions(bodies)
	}
	f.setIn(heads)
	// A variable's binding is of the definition holding its line, as
	// the calls are.
	j := 0
	for i := range f.Binds {
		if f.Binds[i].Kind == 'v' && j < len(binds) {
			f.Binds[i].In = f.enclosing(binds[j], -1)
			j++
		}
	}
	return f, nil
}

// setIn sets the definition each call is in: the innermost function,
// method or test holding its line; for a call that declares a JavaScript
// test (heads), the one holding the test.
func (f *File) setIn(heads []testHead) {
	if len(heads) == 0 && len(f.Calls)*len(f.Defs) > 256 {
		f.setInByLine()
		return
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		c.In = f.enclosing(c.Line, -1)
		for _, h := range heads {
			if h.holds(c) { // it('adds', …) is called by what holds the test
				c.In = f.enclosing(c.Line, h.def)
			}
		}
	}
}

// setInByLine is setIn without test heads, for many calls: what
// enclosing finds for each line, painted once. enclosing picks, of the
// definitions holding a line, the last to start (the last of them by
// index, of those starting on the same line): painted in that order, it
// is the one painted last.
func (f *File) setInByLine() {
	in := f.inByLine()
	for i := range f.Calls {
		c := &f.Calls[i]
		c.In = -1
		if c.Line >= 0 && c.Line < len(in) {
			c.In = int(in[c.Line])
		}
	}
}

// addDefs adds the functions, methods and types among syms (and their
// children) to f; class is the type whose body they are in.
func (f *File) addDefs(syms []*outline.Symbol, class string) {
	for _, s := range syms {
		switch s.Kind {
		case "func", "method":
			d := Def{Name: s.Name, Kind: s.Kind, Path: f.Path, Start: s.StartLine, End: s.EndLine, Language: f.Language}
			switch {
			case s.Kind == "method":
				d.Type = receiverType(s.Receiver, class)
				if r := strings.Fields(strings.Trim(s.Receiver, "()")); len(r) == 2 {
					d.recv = r[0]
				}
			case f.Language == lang.Rust:
				d.Type = class // an associated function of an impl: Stack::new
			}
			switch lang.Family(f.Language) {
			case lang.JavaScript:
				jsDef(&d)
			case lang.C:
				cDef(&d, s)
			}
			d.Test = isTest(d, s, f.Path)
			f.Defs = append(f.Defs, d)
		case "class", "struct", "interface", "type", "enum", "trait", "record":
			name := s.Name
			if lang.Family(f.Language) == lang.JavaScript {
				// module.exports = class Store {}: the module's default.
				if d := (Def{Name: name}); !strings.Contains(name, ".prototype.") {
					jsDef(&d)
					name = d.Name
				}
			}
			if name != "" {
				f.Defs = append(f.Defs, Def{Name: name, Kind: s.Kind, Path: f.Path, Start: s.StartLine, End: s.EndLine, Language: f.Language})
				if s.Kind == "class" && name != s.Name {
					// module.exports = class extends Base {}: the query
					// reads the bases of declared classes only.
					if base := jsBase(s.Signature); base != "" {
						f.Binds = append(f.Binds, Bind{In: -1, Kind: 'e', Owner: name, Expr: ":" + base})
					}
				}
			}
			f.addDefs(s.Children, name)
			continue
		case "namespace":
			// A TypeScript namespace: its members are called through it
			// (errorUtil.errToObj()), and keep their own names.
			if lang.Family(f.Language) == lang.JavaScript && s.Name != "" {
				f.Defs = append(f.Defs, Def{Name: s.Name, Kind: s.Kind, Path: f.Path, Start: s.StartLine, End: s.EndLine, Language: f.Language})
			}
		case "impl": // Rust: the methods of a type defined elsewhere
			f.addDefs(s.Children, s.Name)
			continue
		}
		f.addDefs(s.Children, class)
	}
}

// readCall reads a call from its captures: a name, and what it is called
// on, or a scoped path (a::b::f) split at its last ::.
func readCall(cp captured, src []byte) (Call, bool) {
	var c Call
	at := cp.call
	switch {
	case cp.path != nil:
		scope, name := splitPath(cp.path.Content(src))
		c.Name, at = name, cp.path
		if scope != "" {
			c.Qualifier = scope + "::"
		}
	case cp.name != nil:
		c.Name = cp.name.Content(src)
		at = cp.name
		if cp.qualifier != nil {
			c.Qualifier = cp.qualifier.Content(src)
		}
	}
	p := at.StartPoint()
	c.Line, c.Col = int(p.Row)+1, int(p.Column)+1
	return c, c.Name != ""
}

// splitPath splits a scoped name as written (geo::area, Vec::<T>::new,
// std::vector<int>::size, Box::operator<) into its scope and its last
// name, without generic arguments or spaces.
func splitPath(text string) (scope, name string) {
	op := "" // an operator's name is kept as written: operator<<
	if i := strings.LastIndex(text, "operator"); i >= 0 && (i == 0 || text[i-1] == ':' || text[i-1] == ' ') {
		text, op = text[:i], strings.Join(strings.Fields(text[i:]), "")
	}
	var b strings.Builder
	depth := 0
	for _, r := range text {
		switch {
		case r == '<':
			depth++
		case r == '>':
			depth--
		case depth == 0 && r != ' ' && r != '\t' && r != '\n' && r != '\r':
			b.WriteRune(r)
		}
	}
	s := strings.ReplaceAll(b.String(), "::::", "::") + op // Vec::<T>::new
	i := strings.LastIndex(s, "::")
	if i < 0 {
		return "", s
	}
	return strings.TrimSuffix(s[:i], "::"), s[i+2:]
}

// readImports reads the imports of one match, as its language writes them.
func (f *File) readImports(cp captured, src []byte) []Import {
	text := func(n *sitter.Node) string {
		if n == nil {
			return ""
		}
		return n.Content(src)
	}
	switch lang.Family(f.Language) {
	case lang.JavaScript:
		return []Import{jsImport(cp, src)}
	case lang.Rust:
		return rustUses(cp.imp, src)
	case lang.Java:
		if imp, ok := javaImport(text(cp.imp)); ok {
			return []Import{imp}
		}
		return nil
	case lang.C:
		t := text(cp.imp)
		if !strings.HasPrefix(t, `"`) {
			return nil // <system> headers are not in the workspace
		}
		t = strings.Trim(t, `"`)
		return []Import{{Alias: t, Target: t}}
	}
	return []Import{importOf(f.Language, text(cp.alias), text(cp.imp), text(cp.from))}
}

// importOf is the import of a Go or Python file from the text of its
// captures: alias, import and from ("" when not captured).
func importOf(language, alias, target, from string) Import {
	if target == "*" && from != "" {
		// from m import *: the module itself, bound to no one name.
		return Import{Alias: "*", Target: strings.TrimLeft(from, ".")}
	}
	imp := Import{Alias: alias, Target: strings.Trim(target, "\"`")}
	if from != "" {
		if imp.Alias == "" {
			imp.Alias = imp.Target
		}
		imp.Target = strings.TrimLeft(from, ".") + "." + imp.Target
	} else if imp.Alias == "" {
		imp.Alias = defaultAlias(language, imp.Target)
	}
	return imp
}

// lineSpan is the lines of a node.
type lineSpan struct{ start, end int }

func spanOf(n *sitter.Node) lineSpan {
	return lineSpan{int(n.StartPoint().Row) + 1, int(n.EndPoint().Row) + 1}
}

// enclosing is the innermost function, method or test of f holding line
// (other than the definition except), or -1.
func (f *File) enclosing(line, except int) int {
	best := -1
	for i, d := range f.Defs {
		if (d.Kind == "func" || d.Kind == "method" || d.Kind == "test") && d.Start <= line && line <= d.End && i != except {
			if best < 0 || d.Start >= f.Defs[best].Start {
				best = i
			}
		}
	}
	return best
}

// receiverType is a Go receiver's type name ("(s *Store)" → Store), or
// the class a method is in.
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
func defaultAlias(language, target string) string {
	if language == lang.Go {
		return path.Base(target)
	}
	return target
}

// isTest says whether d, read from s, is a test function: Go TestXxx,
// ExampleXxx or FuzzXxx (what go test runs) in a _test.go file; Python test_* (or a method of a Test* class); a Rust
// #[test] function; a Java @Test method (or a JUnit 3 test* method of a
// *Test class); a C or C++ test_* function or GoogleTest TEST. JavaScript
// tests are the callbacks of it, test and describe (jsTestDef).
func isTest(d Def, s *outline.Symbol, rel string) bool {
	switch lang.Family(d.Language) {
	case lang.Go:
		return strings.HasSuffix(rel, "_test.go") && d.Type == "" && d.Kind == "func" && goTestName(d.Name)
	case lang.Python:
		if pyTestPath(rel) {
			// unittest runs every test* method of a TestCase, whatever
			// the class is called; pytest every test* function.
			return strings.HasPrefix(d.Name, "test")
		}
		return strings.HasPrefix(d.Name, "test_") || strings.HasPrefix(d.Name, "test") && strings.HasPrefix(d.Type, "Test")
	case lang.JavaScript:
		return false
	case lang.Rust:
		return rustIsTest(s.Decorators)
	case lang.Java:
		return javaIsTest(d, s.Decorators)
	case lang.C:
		return strings.HasPrefix(d.Name, "test_") || strings.HasPrefix(d.Name, "TEST")
	}
	return strings.HasPrefix(d.Name, "test")
}

// RunsAsTest says whether d is a test: one the graph marks (Def.Test),
// or a Go test suite's method — TestXxx on a type in a _test.go file,
// which check.v1, testify and their kind run by reflection from one
// test function of the package.
func RunsAsTest(d Def) bool {
	if d.Test {
		return true
	}
	return lang.Family(d.Language) == lang.Go && d.Type != "" && d.Kind == "method" &&
		strings.HasSuffix(d.Path, "_test.go") && strings.HasPrefix(d.Name, "Test") && goTestName(d.Name)
}

// goTestName says whether a Go function is one go test runs (or, for
// TestMain, runs the others): Test, Example or Fuzz, alone or followed by
// anything but a lower-case letter.
func goTestName(name string) bool {
	for _, p := range []string{"Test", "Example", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')
		}
	}
	return false
}

// pyTestPath says whether a Python file is a test module: test_*.py or
// *_test.py.
func pyTestPath(rel string) bool {
	b := path.Base(rel)
	return strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py")
}

// Extract reads what the graph needs of one file's content, named rel,
// without the workspace: for a revision read from git, say. It returns
// nil, nil for a language the graph does not read, and an error wrapping
// syntax.ErrTooBig for a file too large to parse.
func Extract(ctx context.Context, cache *syntax.ParseCache, rel string, src []byte) (*File, error) {
	if path.Base(rel) == "go.mod" {
		return goModFile(rel, src), nil
	}
	if isTSConfig(rel) {
		return tsconfigFile(rel, src), nil
	}
	language := syntax.LanguageFor(rel)
	if !Supported(language) {
		return nil, nil
	}
	tree, err := cache.ParseUncached(ctx, language, src)
	if tb := (*syntax.TooBigError)(nil); errors.As(err, &tb) {
		return nil, fmt.Errorf("%s is %w", rel, tb)
	}
	if err != nil {
		return nil, err
	}
	defer tree.Release()
	f, err := extract(ctx, rel, tree)
	if err != nil {
		return nil, err
	}
	f.hash = sha256.Sum256(src)
	f.parsed, f.broken = true, tree.RootNode().HasError()
	return f, nil
}
