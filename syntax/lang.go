package syntax

import (
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

	"cchub/lang"
)

// Language is one language cchub can parse: a language of the table
// (package lang: its name, extensions, line comment) and its tree-sitter
// grammar.
type Language struct {
	*lang.Language
	Grammar *sitter.Language
}

// grammars are the tree-sitter grammars, by language name.
var grammars = map[string]*sitter.Language{
	lang.Go:         golang.GetLanguage(),
	lang.Python:     python.GetLanguage(),
	lang.JavaScript: javascript.GetLanguage(),
	lang.TypeScript: typescript.GetLanguage(),
	lang.TSX:        tsx.GetLanguage(),
	lang.Rust:       rust.GetLanguage(),
	lang.Java:       java.GetLanguage(),
	lang.C:          c.GetLanguage(),
	lang.Cpp:        cpp.GetLanguage(),
}

// parsed are the languages with a grammar, by the table's *Language.
var parsed = map[*lang.Language]*Language{}

func init() {
	for _, l := range lang.All() {
		if g := grammars[l.Name]; g != nil {
			parsed[l] = &Language{Language: l, Grammar: g}
		}
	}
}

// LanguageFor returns the language of a file by its extension, or nil
// when it has none cchub can parse.
func LanguageFor(path string) *Language { return parsed[lang.Of(path)] }

// LanguageByName returns the language called name (case-insensitive, common
// aliases accepted), or nil when cchub cannot parse it.
func LanguageByName(name string) *Language { return parsed[lang.ByName(name)] }

// LanguageNames lists the canonical names of the languages cchub can
// parse, sorted, for messages.
func LanguageNames() []string {
	var ns []string
	for _, n := range lang.Names() {
		if grammars[n] != nil {
			ns = append(ns, n)
		}
	}
	return ns
}
