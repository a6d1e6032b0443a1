package structsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"cchub/syntax"
)

// found compiles pattern for lang, matches it against src and returns each
// match as "line:col" followed by its captures ("3:2 $X=err").
func found(t *testing.T, language, pattern, src string) []string {
	t.Helper()
	p := compile(t, language, pattern)
	defer p.Close()
	tree, err := syntax.ParseOnce(context.Background(), p.Lang, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Release()
	if tree.RootNode().HasError() {
		t.Fatalf("the %s source does not parse cleanly:\n%s", language, tree.RootNode())
	}
	out := []string{}
	for _, m := range matchOf(t, p, tree.RootNode(), tree.Source) {
		s := fmt.Sprintf("%d:%d", m.StartLine, m.StartCol)
		for _, c := range m.Captures {
			s += fmt.Sprintf(" %s=%s", c.Name, strings.Join(strings.Fields(c.Text), " "))
		}
		out = append(out, s)
	}
	if !p.MayMatch([]byte(src)) && len(out) > 0 {
		t.Errorf("MayMatch said no to a source with %d matches", len(out))
	}
	return out
}

// matchOf is p.Match of a tree, failing the test on an error.
func matchOf(tb testing.TB, p *Pattern, root *sitter.Node, src []byte) []Match {
	tb.Helper()
	ms, err := p.Match(context.Background(), root, src)
	if err != nil {
		tb.Fatalf("%s: %v", p.Source, err)
	}
	return ms
}

// everyCandidate matches p at every node its query finds, whatever the
// anchors of its rarest tokens say.
func everyCandidate(tb testing.TB, p *Pattern, root *sitter.Node, src []byte) []Match {
	tb.Helper()
	ctx := context.Background()
	cands, err := p.queryCandidates(ctx, root)
	if err != nil {
		tb.Fatal(err)
	}
	ms, err := p.matchNodes(ctx, root, cands, src)
	if err != nil {
		tb.Fatalf("%s: %v", p.Source, err)
	}
	return ms
}

func compile(t *testing.T, language, pattern string) *Pattern {
	t.Helper()
	l := syntax.LanguageByName(language)
	if l == nil {
		t.Fatalf("no language %q", language)
	}
	p, err := Compile(context.Background(), pattern, l)
	if err != nil {
		t.Fatalf("Compile(%q, %s): %v", pattern, language, err)
	}
	return p
}

type langCase struct {
	name     string
	language string
	pattern  string
	src      string
	want     []string // "line:col $CAPTURE=text ..."
	context  string   // if set, the wrapping context that must accept the pattern
}

func runLangCases(t *testing.T, cases []langCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.language+"/"+c.name, func(t *testing.T) {
			if c.context != "" {
				p := compile(t, c.language, c.pattern)
				if p.Context != c.context {
					t.Errorf("%q compiled in the %s context as %s; want the %s context", c.pattern, p.Context, p, c.context)
				}
				p.Close()
			}
			got := found(t, c.language, c.pattern, c.src)
			if c.want == nil {
				c.want = []string{}
			}
			if !slices.Equal(got, c.want) {
				p := compile(t, c.language, c.pattern)
				defer p.Close()
				t.Errorf("%q (%s context, %s)\nfound %q\nwant  %q", c.pattern, p.Context, p, got, c.want)
			}
		})
	}
}
