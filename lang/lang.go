package lang

import (
	"path"
	"sort"
	"strings"
)

// The canonical language names.
const (
	Go         = "go"
	Python     = "python"
	JavaScript = "javascript"
	TypeScript = "typescript"
	TSX        = "tsx"
	Rust       = "rust"
	Java       = "java"
	C          = "c"
	Cpp        = "cpp"
	Ruby       = "ruby"
)

// Language is one language cchub knows by name.
type Language struct {
	// Name is the canonical name, as users type it (`-l go`).
	Name string
	// Title is the name as prose writes it ("JavaScript").
	Title string
	// Aliases are other names people type for it ("golang", "py").
	Aliases []string
	// Extensions select it, lower case, with the dot; the first is its
	// usual one.
	Extensions []string
	// Family is the language whose names, imports and tests it shares:
	// TypeScript's and TSX's is JavaScript, C++'s is C; else its own.
	Family string
	// LineComment starts a comment that runs to the end of the line.
	LineComment string
	// LSPID is the languageId a language server is told for its files
	// (an extension may say otherwise: LSPID).
	LSPID string
	// testFile says whether its test frameworks collect the file at
	// rel (slash-separated) by default; nil when cchub knows none.
	testFile func(rel string) bool
}

var languages = []*Language{
	{Name: Go, Title: "Go", Aliases: []string{"golang"}, Extensions: []string{".go"}, LineComment: "//", testFile: goTestFile},
	{Name: Python, Title: "Python", Aliases: []string{"py"}, Extensions: []string{".py", ".pyi", ".pyw"}, LineComment: "#", testFile: pyTestFile},
	{Name: JavaScript, Title: "JavaScript", Aliases: []string{"js"}, Extensions: []string{".js", ".jsx", ".mjs", ".cjs"}, LineComment: "//", testFile: jsTestFile},
	{Name: TypeScript, Title: "TypeScript", Aliases: []string{"ts"}, Extensions: []string{".ts", ".mts", ".cts"}, Family: JavaScript, LineComment: "//", testFile: jsTestFile},
	{Name: TSX, Title: "TSX", Extensions: []string{".tsx"}, Family: JavaScript, LineComment: "//", LSPID: "typescriptreact", testFile: jsTestFile},
	{Name: Rust, Title: "Rust", Aliases: []string{"rs"}, Extensions: []string{".rs"}, LineComment: "//"},
	{Name: Java, Title: "Java", Extensions: []string{".java"}, LineComment: "//"},
	{Name: C, Title: "C", Extensions: []string{".c", ".h"}, LineComment: "//"},
	{Name: Cpp, Title: "C++", Aliases: []string{"c++"}, Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"}, Family: C, LineComment: "//"},
	{Name: Ruby, Title: "Ruby", Aliases: []string{"rb"}, Extensions: []string{".rb"}, LineComment: "#"},
}

// headers are the C and C++ files that are included, not compiled.
var headers = map[string]bool{".h": true, ".hh": true, ".hpp": true, ".hxx": true, ".h++": true, ".ipp": true, ".inl": true}

// lspIDs are the extensions whose language id is not their language's.
var lspIDs = map[string]string{".jsx": "javascriptreact"}

// jsModuleOrder is the order in which a JavaScript or TypeScript module
// specifier without an extension is tried against files.
var jsModuleOrder = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

var (
	byExt  = map[string]*Language{}
	byName = map[string]*Language{}
)

func init() {
	for _, l := range languages {
		if l.Family == "" {
			l.Family = l.Name
		}
		if l.LSPID == "" {
			l.LSPID = l.Name
		}
		byName[l.Name] = l
		for _, a := range l.Aliases {
			byName[a] = l
		}
		for _, e := range l.Extensions {
			if byExt[e] != nil {
				panic("lang: " + e + " selects two languages")
			}
			byExt[e] = l
		}
	}
}

// Ext is the extension of the file at p, lower case, with the dot.
func Ext(p string) string { return strings.ToLower(path.Ext(strings.ReplaceAll(p, "\\", "/"))) }

// Of is the language of the file at p (a path, or a bare extension such
// as ".go") by its extension, or nil.
func Of(p string) *Language {
	if strings.HasPrefix(p, ".") && !strings.ContainsAny(p[1:], "./\\") {
		return byExt[strings.ToLower(p)]
	}
	return byExt[Ext(p)]
}

// NameOf is the name of the language of the file at p, or "".
func NameOf(p string) string {
	if l := Of(p); l != nil {
		return l.Name
	}
	return ""
}

// ByName is the language called name (case-insensitive, aliases
// accepted), or nil.
func ByName(name string) *Language { return byName[strings.ToLower(name)] }

// All lists the languages in the table's order.
func All() []*Language { return append([]*Language(nil), languages...) }

// Names lists the canonical names, sorted, for messages.
func Names() []string {
	var ns []string
	for _, l := range languages {
		ns = append(ns, l.Name)
	}
	sort.Strings(ns)
	return ns
}

// Family is the family of the language called name (see
// Language.Family); a name not in the table is its own family.
func Family(name string) string {
	if l := ByName(name); l != nil {
		return l.Family
	}
	return name
}

// FamilyOf is the family of the file at p's language, or "".
func FamilyOf(p string) string {
	if l := Of(p); l != nil {
		return l.Family
	}
	return ""
}

// InFamily says the file at p is of a language of family.
func InFamily(p, family string) bool { return family != "" && FamilyOf(p) == family }

// LSPID is the languageId a language server is told for the file at p,
// or "" when no language of the table has its extension.
func LSPID(p string) string {
	e := Ext(p)
	if id, ok := lspIDs[e]; ok {
		return id
	}
	if l := byExt[e]; l != nil {
		return l.LSPID
	}
	return ""
}

// LSPLanguages maps each extension of the named languages to the
// languageId a server is told for it: a server's language table.
func LSPLanguages(names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if l := ByName(n); l != nil {
			for _, e := range l.Extensions {
				m[e] = LSPID(e)
			}
		}
	}
	return m
}

// IsHeader says the file at p is a C or C++ header by its extension.
func IsHeader(p string) bool { return headers[Ext(p)] }

// IsSource says p has the extension of a language in the table.
func IsSource(p string) bool { return Of(p) != nil }

// IsTestFile says the test frameworks of the file's language collect the
// file at rel (slash-separated) by default: Go's *_test.go; pytest's
// test_*.py and *_test.py; for JavaScript and TypeScript, Jest's and
// Vitest's *.test.*, *.spec.* and files under __tests__/, and what Mocha
// and node --test take: files under test/ or tests/ and node's test-*,
// *-test, *_test and test.* names.
func IsTestFile(rel string) bool {
	l := Of(rel)
	return l != nil && l.testFile != nil && l.testFile(rel)
}

// ModuleCandidates are the files a JavaScript or TypeScript module
// specifier without a known extension may name, in the order they are
// tried: base.ts, base.tsx, …
func ModuleCandidates(base string) []string {
	out := make([]string, len(jsModuleOrder))
	for i, e := range jsModuleOrder {
		out[i] = base + e
	}
	return out
}

func goTestFile(rel string) bool { return strings.HasSuffix(rel, "_test.go") }

func pyTestFile(rel string) bool {
	b := path.Base(rel)
	stem := strings.TrimSuffix(b, path.Ext(b))
	return path.Ext(b) == ".py" && (strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test"))
}

func jsTestFile(rel string) bool {
	b := path.Base(rel)
	stem := strings.TrimSuffix(b, path.Ext(b))
	if strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") ||
		stem == "test" || strings.HasPrefix(stem, "test-") || strings.HasSuffix(stem, "-test") || strings.HasSuffix(stem, "_test") {
		return true
	}
	for _, dir := range []string{"__tests__", "test", "tests"} {
		if strings.HasPrefix(rel, dir+"/") || strings.Contains(rel, "/"+dir+"/") {
			return true
		}
	}
	return false
}
