package syntax

import (
	"path/filepath"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// Language is one language cchub can parse: its name as users type it
// (`-l go`), the extensions that select it, and its tree-sitter grammar.
type Language struct {
	Name       string
	Extensions []string
	Grammar    *sitter.Language
	// LineComment starts a comment that runs to the end of the line; tools
	// that annotate a line of this language's code use it.
	LineComment string
}

var languages = []*Language{
	{Name: "go", Extensions: []string{".go"}, Grammar: golang.GetLanguage(), LineComment: "//"},
	{Name: "python", Extensions: []string{".py", ".pyi", ".pyw"}, Grammar: python.GetLanguage(), LineComment: "#"},
	{Name: "javascript", Extensions: []string{".js", ".jsx", ".mjs", ".cjs"}, Grammar: javascript.GetLanguage(), LineComment: "//"},
	{Name: "typescript", Extensions: []string{".ts", ".mts", ".cts"}, Grammar: typescript.GetLanguage(), LineComment: "//"},
	{Name: "tsx", Extensions: []string{".tsx"}, Grammar: tsx.GetLanguage(), LineComment: "//"},
	{Name: "rust", Extensions: []string{".rs"}, Grammar: rust.GetLanguage(), LineComment: "//"},
	{Name: "java", Extensions: []string{".java"}, Grammar: java.GetLanguage(), LineComment: "//"},
	{Name: "c", Extensions: []string{".c", ".h"}, Grammar: c.GetLanguage(), LineComment: "//"},
	{Name: "cpp", Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"}, Grammar: cpp.GetLanguage(), LineComment: "//"},
}

var (
	byExt  = map[string]*Language{}
	byName = map[string]*Language{}
)

func init() {
	for _, l := range languages {
		byName[l.Name] = l
		for _, e := range l.Extensions {
			byExt[e] = l
		}
	}
	// Names people type for the same thing.
	byName["golang"] = byName["go"]
	byName["py"] = byName["python"]
	byName["js"] = byName["javascript"]
	byName["ts"] = byName["typescript"]
	byName["rs"] = byName["rust"]
	byName["c++"] = byName["cpp"]
}

// LanguageFor returns the language of a file by its extension, or nil.
func LanguageFor(path string) *Language {
	return byExt[strings.ToLower(filepath.Ext(path))]
}

// LanguageByName returns the language called name (case-insensitive, common
// aliases accepted), or nil.
func LanguageByName(name string) *Language {
	return byName[strings.ToLower(name)]
}

// LanguageNames lists the canonical language names, sorted, for messages.
func LanguageNames() []string {
	var ns []string
	for _, l := range languages {
		ns = append(ns, l.Name)
	}
	sort.Strings(ns)
	return ns
}
