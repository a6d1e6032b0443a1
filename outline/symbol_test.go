package outline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/workspace"
)

func TestReadSymbol(t *testing.T) {
	tests := []struct {
		ws, id string
		header string // first line
		first  string // first numbered line
		lines  int
	}{
		{"go", "store/store.go:58:New",
			"store/store.go:58-60 New(name string) *Store (3 lines of 119)",
			"58\tfunc New(name string) *Store {", 3},
		// The receiver-qualified forms a model may write all work.
		{"go", "store/store.go:66:Store.Add",
			"store/store.go:66-74 Store.Add(it Item) error (9 lines of 119)",
			"66\tfunc (s *Store) Add(it Item) error {", 9},
		{"go", "store/store.go:66:(*Store).Add", "", "66\tfunc (s *Store) Add(it Item) error {", 9},
		{"go", "id=store/store.go:L66:Add", "", "66\tfunc (s *Store) Add(it Item) error {", 9},
		{"go", "store/store.go:18:InStock",
			"store/store.go:18 const InStock State = iota (1 line of 119)",
			"18\t\tInStock State = iota // at least one on the shelf", 1},
		{"go", "store/report.go:22:Report", "", "22\tfunc Report(r Repository, opts ReportOptions) string {", 166},
		{"python", "inventory/models.py:67:Store.parse_sku",
			"inventory/models.py:67-72 parse_sku(text: str) -> Optional[str] (6 lines of 88)",
			"67\t    @staticmethod", 6},
		{"python", "inventory/cli.py:65:__main__", "", `65	if __name__ == "__main__":`, 2},
		{"rust", "src/lib.rs:48:Store::new", "", "48\t    pub fn new(name: &str) -> Self {", 3},
		{"rust", "src/lib.rs:101:tests::add_twice_fails", "", "101\t    #[test]", 6},
		{"mixed", "native/ledger.cpp:16:Ledger::book", "", "16\tstd::size_t Ledger::book(const Entry& e) {", 5},
		{"mixed", "java/shop/Inventory.java:48:Inventory.add", "", "48\t    @Deprecated", 4},
		{"typescript", "src/app.tsx:17:Table", "", "17\texport const Table: React.FC<{ items: Item[] }> = ({ items }) => {", 13},
	}
	cache := syntax.NewParseCache(0)
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			root, _ := workspace.Open(fixtureDir(t, tt.ws))
			st, err := ReadSymbol(context.Background(), root, cache, tt.id, Budget{})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(st.Text(), "\n"), "\n")
			if tt.header != "" && lines[0] != tt.header {
				t.Errorf("header\n got %q\nwant %q", lines[0], tt.header)
			}
			if lines[1] != tt.first {
				t.Errorf("first line\n got %q\nwant %q", lines[1], tt.first)
			}
			if got := len(lines) - 1; got != tt.lines {
				t.Errorf("%d lines, want %d", got, tt.lines)
			}
			if n := st.Symbol.EndLine - st.Symbol.StartLine + 1; n != tt.lines {
				t.Errorf("symbol spans %d lines, want %d", n, tt.lines)
			}
		})
	}
}

// editedCopy copies a fixture file into a fresh workspace, lets edit change
// it, and returns the workspace.
func editedCopy(t *testing.T, ws, rel string, edit func(string) string) *workspace.Root {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(fixtureDir(t, ws), rel))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(edit(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestReadSymbolAfterTheFileChanged(t *testing.T) {
	cache := syntax.NewParseCache(0)
	ctx := context.Background()

	// Two lines added above New: the old id points at the wrong line.
	root := editedCopy(t, "go", "store/store.go", func(s string) string {
		return strings.Replace(s, "// New returns", "var x = 1\n\n// New returns", 1)
	})
	_, err := ReadSymbol(ctx, root, cache, "store/store.go:58:New", Budget{})
	if err == nil {
		t.Fatal("no error for a moved symbol")
	}
	if want := "it is now at store/store.go:60-62: read_symbol id=store/store.go:New"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	// The id the error names works.
	if _, err := ReadSymbol(ctx, root, cache, "store/store.go:60:New", Budget{}); err != nil {
		t.Errorf("the suggested id fails: %v", err)
	}

	// Name is both an interface method and a Store method: both are named.
	_, err = ReadSymbol(ctx, root, cache, "store/store.go:10:Name", Budget{})
	for _, want := range []string{
		"2 symbols are named Name now",
		"read_symbol id=store/store.go:Repository.Name",
		"read_symbol id=store/store.go:Store.Name",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}

	// A symbol that is gone says so and points at outline.
	root = editedCopy(t, "go", "store/store.go", func(s string) string {
		return strings.Replace(s, "func StateOf(", "func stockState(", 1)
	})
	_, err = ReadSymbol(ctx, root, cache, "store/store.go:100:StateOf", Budget{})
	for _, want := range []string{
		"store/store.go has no symbol named StateOf",
		"line 100 now starts stockState(it Item, low int) State",
		"outline path=store/store.go",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestReadSymbolBadIDs(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	cache := syntax.NewParseCache(0)
	tests := []struct{ id, want string }{
		{"New", `id "New" names no file; write it as path:name`},
		{"store/store.go:0:New", "lines start at 1"},
		{":58:New", "has no path"},
		{"store/store.go:Nope", "store/store.go has no symbol named Nope; outline path=store/store.go lists its symbols"},
		{"store/nope.go:1:New", "no such file: store/nope.go"},
		{"store:1:New", "store is a directory; outline path=store"},
		{"go.mod:1:module", `no outline for ".mod" files`},
		{"../x.go:1:New", "outside the workspace root"},
	}
	for _, tt := range tests {
		_, err := ReadSymbol(context.Background(), root, cache, tt.id, Budget{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadSymbol(%q) = %v, want an error with %q", tt.id, err, tt.want)
		}
	}
	// Malformed ids show the form and an example.
	_, err := ReadSymbol(context.Background(), root, cache, "New", Budget{})
	if err == nil || !strings.Contains(err.Error(), "e.g. store/store.go:New") || !strings.Contains(err.Error(), "outline path=. match=New") {
		t.Errorf("malformed id error %v has no example, or no way to find the file", err)
	}
}

// TestReadSymbolByName: a model that knows a name needs no outline and no
// line; a name that is not unique, or not quite right, answers with the
// ids that would work.
func TestReadSymbolByName(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	cache := syntax.NewParseCache(0)
	ctx := context.Background()
	for id, want := range map[string]string{
		"store/store.go:New":             "store/store.go:58-60 New(name string) *Store",
		"store/store.go:Store.Add":       "store/store.go:66-74 Store.Add(it Item) error",
		"store/store.go:(*Store).Add":    "store/store.go:66-74 Store.Add(it Item) error",
		"store/store.go:Add":             "store/store.go:66-74 Store.Add(it Item) error",
		"store/store.go:Repository":      "store/store.go:47-51 interface Repository",
		"store/store.go:Repository.List": "store/store.go:49 List() []Item",
		"store/store.go:70":              "store/store.go:66-74 Store.Add(it Item) error", // the symbol around line 70
		"store/store.go:49":              "store/store.go:49 List() []Item",               // the innermost one
		"store/store.go:L18":             "store/store.go:18 const InStock State = iota",
		// The places other tools print.
		"store/store.go:66-74": "store/store.go:66-74 Store.Add(it Item) error", // read_symbol's own header
		"store/store.go:67:2":  "store/store.go:66-74 Store.Add(it Item) error", // a search match
	} {
		st, err := ReadSymbol(ctx, root, cache, id, Budget{})
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if got := strings.SplitN(st.Text(), " (", 2)[0]; got != want {
			t.Errorf("%s: header %q, want %q", id, got, want)
		}
	}
	for id, wants := range map[string][]string{
		// Name is a Store method and a Repository method.
		"store/store.go:Name": {"2 symbols of store/store.go are named Name", "read_symbol id=store/store.go:Repository.Name", "read_symbol id=store/store.go:Store.Name"},
		// Wrong case, a typo: the right id is named.
		"store/store.go:store.add":                {"no symbol named store.add; did you mean:\n  read_symbol id=store/store.go:Store.Add"},
		"store/store.go:Store.Ad":                 {"did you mean:\n  read_symbol id=store/store.go:Store.Add"},
		"store/store.go:new":                      {"did you mean:\n  read_symbol id=store/store.go:New"},
		"store/store.go:1000":                     {"store/store.go has 119 lines, so no symbol covers line 1000; outline path=store/store.go"},
		"store/store.go":                          {`id "store/store.go" is a file without a symbol name; write it as store/store.go:Name`},
		"store/store.go:Delete(sku string) error": {"match=Delete"},
	} {
		_, err := ReadSymbol(ctx, root, cache, id, Budget{})
		for _, w := range wants {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v lacks %q", id, err, w)
			}
		}
	}
	// Each id an error suggests works.
	_, err := ReadSymbol(ctx, root, cache, "store/store.go:Name", Budget{})
	for _, m := range regexp.MustCompile(`read_symbol id=(\S+)`).FindAllStringSubmatch(err.Error(), -1) {
		if _, err := ReadSymbol(ctx, root, cache, m[1], Budget{}); err != nil {
			t.Errorf("suggested id %s fails: %v", m[1], err)
		}
	}
}

// TestReadSymbolWithinABudget: a symbol longer than the budget is cut at a
// whole line, and the text names the read that continues it.
func TestReadSymbolWithinABudget(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	st, err := ReadSymbol(context.Background(), root, syntax.NewParseCache(0), "store/report.go:Report", Budget{Bytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Body) > 1000 || st.ShownEnd >= st.Symbol.EndLine || !strings.HasSuffix(st.Body, "\n") {
		t.Fatalf("body of %d bytes, shown to line %d of %d", len(st.Body), st.ShownEnd, st.Symbol.EndLine)
	}
	want := fmt.Sprintf("continue with read path=store/report.go offset=%d limit=%d]", st.ShownEnd+1, st.Symbol.EndLine-st.ShownEnd)
	if !strings.Contains(st.Text(), want) {
		t.Errorf("text lacks %q:\n%s", want, st.Text())
	}
	last := strings.Split(strings.TrimSuffix(st.Body, "\n"), "\n")
	if !strings.HasPrefix(last[len(last)-1], strconv.Itoa(st.ShownEnd)+"\t") {
		t.Errorf("last listed line %q is not line %d", last[len(last)-1], st.ShownEnd)
	}
}

// TestReadSymbolColonInPath: the id is split at the ":line:" that leads to
// an existing file, so a path may contain colons.
func TestReadSymbolColonInPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a:1:b.go"), []byte("package a\n\nfunc F() {}\n"), 0o644); err != nil {
		t.Skipf("this file system refuses colons in names: %v", err)
	}
	root, _ := workspace.Open(dir)
	st, err := ReadSymbol(context.Background(), root, syntax.NewParseCache(0), "a:1:b.go:3:F", Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Path != "a:1:b.go" || st.Symbol.Name != "F" {
		t.Errorf("got %s %s", st.Path, st.Symbol.Name)
	}
}

// TestOutlineIDsRoundTrip reads every symbol of every fixture file by the
// id its outline line gives.
func TestOutlineIDsRoundTrip(t *testing.T) {
	cache := syntax.NewParseCache(0)
	read := 0
	for _, ws := range []string{"go", "python", "typescript", "rust", "mixed"} {
		root, _ := workspace.Open(fixtureDir(t, ws))
		r, err := Of(context.Background(), root, cache, ".", Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Dir.Files {
			fo, err := Of(context.Background(), root, cache, f.Path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var walk func([]*Symbol)
			walk = func(ss []*Symbol) {
				for _, s := range ss {
					walk(s.Children)
					if !addressable(s) {
						continue
					}
					id := f.Path + ":" + strconv.Itoa(s.StartLine) + ":" + s.Name
					st, err := ReadSymbol(context.Background(), root, cache, id, Budget{})
					if err != nil {
						t.Errorf("%s/%s: %v", ws, id, err)
						continue
					}
					read++
					if st.Symbol.StartLine != s.StartLine || st.Symbol.Name != s.Name {
						t.Errorf("%s/%s read %s at L%d", ws, id, st.Symbol.Name, st.Symbol.StartLine)
					}
					// The shortest id the errors and hints give names it too.
					short, _ := idFor(fo.File.Symbols, s)
					if st, err := ReadSymbol(context.Background(), root, cache, f.Path+":"+short, Budget{}); err != nil || st.Symbol.StartLine != s.StartLine {
						t.Errorf("%s/%s: short id %s: %v", ws, id, short, err)
					}
				}
			}
			walk(fo.File.Symbols)
			// The outline's own hint works.
			if m := regexp.MustCompile(`read one: read_symbol id=(\S+)`).FindStringSubmatch(fo.Text()); m != nil {
				if _, err := ReadSymbol(context.Background(), root, cache, m[1], Budget{}); err != nil {
					t.Errorf("%s: the outline's hint %s fails: %v", ws, m[1], err)
				}
			}
		}
	}
	if read < 200 {
		t.Errorf("read only %d symbols back; the fixtures have more", read)
	}
	t.Logf("read %d symbols back by their ids", read)
}

// Two functions on one line: path:LINE names neither alone, and says so.
func TestReadSymbolTwoOnOneLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.js"), []byte("function a() {} function b() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := workspace.Open(dir)
	cache := syntax.NewParseCache(0)
	_, err := ReadSymbol(context.Background(), root, cache, "two.js:1", Budget{})
	for _, w := range []string{"2 symbols of two.js are on line 1", "read_symbol id=two.js:a", "read_symbol id=two.js:b"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
	if st, err := ReadSymbol(context.Background(), root, cache, "two.js:b", Budget{}); err != nil || st.Symbol.Name != "b" {
		t.Errorf("two.js:b: %v", err)
	}
}
