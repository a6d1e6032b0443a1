package structsearch

import (
	"math"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// grammar is what the matcher needs to know about a language's node kinds,
// indexed by symbol, so that asking a node's kind is one cgo call and no
// string conversion.
type grammar struct {
	kinds []kindInfo
	// keywords are the grammar's word tokens (`package`, `if`, `def`):
	// an identifier with one of these texts in a pattern's tree means a
	// wrapping context misread the fragment.
	keywords map[string]bool
}

type kindInfo struct {
	name    string
	named   bool
	comment bool
	// stringy kinds keep the text between their children (a string's
	// content is often no child at all), whitespace included.
	stringy bool
}

var errorKind = kindInfo{name: "ERROR", named: true}

var grammars sync.Map // *sitter.Language → *grammar

func grammarOf(l *sitter.Language) *grammar {
	if g, ok := grammars.Load(l); ok {
		return g.(*grammar)
	}
	g := &grammar{keywords: map[string]bool{}}
	n := l.SymbolCount()
	g.kinds = make([]kindInfo, n)
	for s := uint32(0); s < n; s++ {
		name := l.SymbolName(sitter.Symbol(s))
		typ := l.SymbolType(sitter.Symbol(s))
		g.kinds[s] = kindInfo{
			name:    name,
			named:   typ == sitter.SymbolTypeRegular,
			comment: strings.Contains(name, "comment"),
			stringy: isStringy(name),
		}
		if typ == sitter.SymbolTypeAnonymous && isWord(name) {
			g.keywords[name] = true
		}
	}
	actual, _ := grammars.LoadOrStore(l, g)
	return actual.(*grammar)
}

// kind describes n's kind.
func (g *grammar) kind(n *sitter.Node) *kindInfo {
	s := n.Symbol()
	if s == math.MaxUint16 || int(s) >= len(g.kinds) {
		return &errorKind
	}
	return &g.kinds[s]
}

// hasNamed says some named kind of the grammar is called name.
func (g *grammar) hasNamed(name string) bool {
	for i := range g.kinds {
		if g.kinds[i].named && g.kinds[i].name == name {
			return true
		}
	}
	return false
}

func isStringy(kind string) bool {
	return strings.Contains(kind, "string") || strings.Contains(kind, "char") || strings.Contains(kind, "rune")
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z') {
			return false
		}
	}
	return true
}
