package lang

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestLookups(t *testing.T) {
	for _, c := range []struct{ path, name, family, lspID string }{
		{"a/b.go", Go, Go, "go"},
		{"A/B.GO", Go, Go, "go"},
		{"x.pyi", Python, Python, "python"},
		{"x.pyw", Python, Python, "python"},
		{"src/x.ts", TypeScript, JavaScript, "typescript"},
		{"src/x.tsx", TSX, JavaScript, "typescriptreact"},
		{"src/x.jsx", JavaScript, JavaScript, "javascriptreact"},
		{"src/x.mjs", JavaScript, JavaScript, "javascript"},
		{"x.hpp", Cpp, C, "cpp"},
		{"x.rb", Ruby, Ruby, "ruby"},
		{".go", Go, Go, "go"},
		{"Makefile", "", "", ""},
		{"x.txt", "", "", ""},
		{"dir.go/file", "", "", ""},
	} {
		if got := NameOf(c.path); got != c.name {
			t.Errorf("NameOf(%q) = %q, want %q", c.path, got, c.name)
		}
		if got := FamilyOf(c.path); got != c.family {
			t.Errorf("FamilyOf(%q) = %q, want %q", c.path, got, c.family)
		}
		if got := LSPID(c.path); got != c.lspID {
			t.Errorf("LSPID(%q) = %q, want %q", c.path, got, c.lspID)
		}
	}
	for alias, want := range map[string]string{"golang": Go, "PY": Python, "js": JavaScript, "ts": TypeScript, "c++": Cpp, "rs": Rust, "cobol": ""} {
		l := ByName(alias)
		if (l == nil) != (want == "") || (l != nil && l.Name != want) {
			t.Errorf("ByName(%q) = %v, want %q", alias, l, want)
		}
	}
	if Family("typescript") != JavaScript || Family("cobol") != "cobol" {
		t.Errorf("Family: %q, %q", Family("typescript"), Family("cobol"))
	}
	if !slices.IsSorted(Names()) || len(Names()) != len(All()) {
		t.Errorf("Names() = %q", Names())
	}
	want := map[string]string{".py": "python", ".pyi": "python", ".pyw": "python"}
	if got := LSPLanguages(Python); !maps.Equal(got, want) {
		t.Errorf("LSPLanguages(python) = %v, want %v", got, want)
	}
	if got := LSPLanguages(JavaScript, TSX); got[".jsx"] != "javascriptreact" || got[".tsx"] != "typescriptreact" || len(got) != 5 {
		t.Errorf("LSPLanguages(javascript, tsx) = %v", got)
	}
}

func TestTestFiles(t *testing.T) {
	for rel, want := range map[string]bool{
		"pkg/a_test.go":           true,
		"pkg/a.go":                false,
		"pkg/test_a.go":           false,
		"tests/test_a.py":         true,
		"a_test.py":               true,
		"testing.py":              false,
		"test_a.pyi":              false,
		"conftest.py":             false,
		"src/a.test.ts":           true,
		"src/a.spec.tsx":          true,
		"src/__tests__/a.js":      true,
		"__tests__/b.mjs":         true,
		"src/a.ts":                false,
		"src/latest.ts":           false,
		"src/__tests__/README.md": false,
		"test/parse.js":           true,
		"pkg/tests/deep/a.cjs":    true,
		"lib/test-utils.js":       true,
		"lib/parse-test.mjs":      true,
		"lib/parse_test.ts":       true,
		"test.js":                 true,
		"src/testing.js":          false,
		"src/contest/a.js":        false,
		"a_test.rs":               false,
	} {
		if got := IsTestFile(rel); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestHeaders(t *testing.T) {
	for p, want := range map[string]bool{"a.h": true, "b/c.HPP": true, "x.inl": true, "a.c": false, "a.cc": false, "a.go": false} {
		if IsHeader(p) != want {
			t.Errorf("IsHeader(%q) = %v", p, !want)
		}
	}
}

func TestModuleCandidates(t *testing.T) {
	got := ModuleCandidates("src/a")
	if len(got) != 8 || got[0] != "src/a.ts" || got[1] != "src/a.tsx" || got[2] != "src/a.js" {
		t.Errorf("ModuleCandidates = %q", got)
	}
	for _, c := range got {
		if FamilyOf(c) != JavaScript {
			t.Errorf("candidate %s is not JavaScript's family", c)
		}
	}
}

func TestCodeAndDocuments(t *testing.T) {
	for p, want := range map[string][2]bool{
		"a/b.go":        {true, false},
		"x.rb":          {true, false},
		"tools/run.sh":  {true, false},
		"db/schema.SQL": {true, false},
		"README.md":     {false, true},
		"notes.txt":     {false, true},
		"data.json":     {false, false},
		"LICENSE":       {false, false},
	} {
		if got := [2]bool{IsCode(p), IsDocument(p)}; got != want {
			t.Errorf("%s: IsCode, IsDocument = %v, want %v", p, got, want)
		}
	}
	for e := range otherCode {
		if Of(e) != nil {
			t.Errorf("%s is in the table and among the other code", e)
		}
	}
}

// TestTitles: every language has the name prose writes, its own name
// but for case and sign (JavaScript, C++).
func TestTitles(t *testing.T) {
	for _, l := range All() {
		if l.Title == "" || !strings.EqualFold(strings.ReplaceAll(l.Title, "+", "p"), l.Name) {
			t.Errorf("%s: title %q", l.Name, l.Title)
		}
	}
}
