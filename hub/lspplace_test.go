package hub

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/locate"
)

const pricingGo = "pricing/pricing.go"

// shellInsert puts lines at the top of the file after its package clause,
// as a shell or another tool would: behind the run's and the server's back.
func shellInsert(t *testing.T, ws, rel, lines string) {
	t.Helper()
	p := filepath.Join(ws, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "package pricing\n", "package pricing\n"+lines, 1)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The run read pricing.go, the shell then moved Cents down two lines:
// the line and column the model took from its read are answered with
// where Cents is now and the calls that ask about it, and both calls
// then answer.
func TestLSPStalePlaceNamesTheMovedSymbol(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	ctx := context.Background()
	r := h.OpenRun()
	defer h.EndRun(r)
	if _, err := h.Read(ctx, locate.ReadOptions{Path: pricingGo}, r); err != nil {
		t.Fatal(err)
	}
	// Warm the server on the file as read: it must not answer from it.
	if _, err := h.LSP(ctx, LSPQuery{Op: "hover", Path: pricingGo, Line: 24, Col: 6, Run: r}); err != nil {
		t.Fatal(err)
	}
	shellInsert(t, ws, pricingGo, "\n// Two lines the shell added.\n")
	_, err := h.LSP(ctx, LSPQuery{Op: "references", Path: pricingGo, Line: 24, Col: 6, Run: r})
	if err == nil {
		t.Fatal("a stale place was answered")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{
		"pricing/pricing.go changed since this conversation last read it: line 24 was `func Cents(n int64) Money { return Money(n) }` and is now blank",
		"the name read at 24:6 was `Cents`, now at pricing/pricing.go:26:6",
		"Ask: lsp op=references path=pricing/pricing.go line=26 column=6, or lsp op=references path=pricing/pricing.go symbol=Cents",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, q := range []LSPQuery{
		{Op: "references", Path: pricingGo, Symbol: "Cents", Run: r},
		{Op: "references", Path: pricingGo, Line: 26, Col: 6, Run: r},
	} {
		a, err := h.LSP(ctx, q)
		if err != nil {
			t.Fatalf("the call named (%+v): %v", q, err)
		}
		text := a.Text()
		if !strings.HasPrefix(text, "references of pricing/pricing.go:26:6: 4\n") || !strings.Contains(text, "main.go:19:") {
			t.Errorf("the call named (%+v) answers:\n%s", q, text)
		}
		// The file changed since the read: the answer says so.
		if q.Line > 0 && !strings.Contains(text, "note: pricing/pricing.go changed since this conversation last read it: this answer is about `Cents` at pricing/pricing.go:26:6") {
			t.Errorf("no note of the change:\n%s", text)
		}
	}
	// Read again: the place is fresh, no note.
	if _, err := h.Read(ctx, locate.ReadOptions{Path: pricingGo}, r); err != nil {
		t.Fatal(err)
	}
	a, err := h.LSP(ctx, LSPQuery{Op: "references", Path: pricingGo, Line: 26, Col: 6, Run: r})
	if err != nil || strings.Contains(a.Text(), "note:") {
		t.Fatalf("after a read: %v\n%v", err, a)
	}
}

// A conversation whose read of the file this process did not keep (a
// named run's earlier call) still hears that the place is stale, with the
// names on the line asked about.
func TestLSPStalePlaceWithoutTheReadText(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(ws, pricingGo))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRun()
	r.Seen.Keep(nil, map[string][32]byte{pricingGo: sha256.Sum256(data)}, nil)
	shellInsert(t, ws, pricingGo, "\n")
	// Line 24 column 3 is now the blank after "//" of the comment above Cents.
	_, err = h.LSP(ctx, LSPQuery{Op: "references", Path: pricingGo, Line: 24, Col: 3, Run: r})
	if err == nil {
		t.Fatal("a place on a blank was asked")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{
		"no name at pricing/pricing.go:24:3, on a blank of line 24 (the file changed since this conversation last read it): `// Cents returns n cents as Money.`",
		"the names on it: Cents (column 4)",
		"The nearest: lsp op=references path=pricing/pricing.go line=24 column=4, or lsp op=references path=pricing/pricing.go symbol=Cents",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	a, err := h.LSP(ctx, LSPQuery{Op: "references", Path: pricingGo, Symbol: "Cents", Run: r})
	if err != nil || !strings.HasPrefix(a.Text(), "references of pricing/pricing.go:25:6: 4\n") {
		t.Fatalf("the symbol= call named: %v\n%v", err, a)
	}
}

// Impossible places say what the line really is.
func TestLSPImpossiblePlaces(t *testing.T) {
	requireGopls(t)
	ws := copyWorkspace(t, "go")
	h := newTestHub(t, ws)
	ctx := context.Background()
	for _, tc := range []struct {
		q    LSPQuery
		want []string
	}{
		{LSPQuery{Op: "references", Path: pricingGo, Line: 999, Col: 1}, []string{"line 999 is past the end of pricing/pricing.go, which has ", "lsp op=references path=pricing/pricing.go symbol=NAME"}},
		{LSPQuery{Op: "hover", Path: pricingGo, Line: 24, Col: 80}, []string{
			"column 80 is past the end of pricing/pricing.go line 24, which has 45 characters: `func Cents(n int64) Money { return Money(n) }`",
			"The nearest: lsp op=hover path=pricing/pricing.go line=24 column=42",
		}},
		{LSPQuery{Op: "definition", Path: pricingGo, Line: 24, Col: 5}, []string{"no name at pricing/pricing.go:24:5, on a blank of line 24: `func Cents", "line=24 column=6"}},
		// On punctuation the server is asked, and its "no identifier" is
		// turned into the names on the line.
		{LSPQuery{Op: "references", Path: pricingGo, Line: 24, Col: 27}, []string{"gopls found no name at pricing/pricing.go:24:27 (on `{` of line 24: `func Cents", "The nearest: lsp op=references path=pricing/pricing.go line=24 column="}},
	} {
		_, err := h.LSP(ctx, tc.q)
		t.Log(err)
		if err == nil {
			t.Errorf("%+v answered", tc.q)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error lacks %q:\n%v", tc.q, w, err)
			}
		}
	}
}
