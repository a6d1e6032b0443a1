package locate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/workspace"
)

// outlineFixture outlines one file of a fixture workspace.
func outlineFixture(t *testing.T, ws, rel string, opts OutlineOptions) *FileOutline {
	t.Helper()
	root, err := workspace.Open(fixtureDir(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Outline(context.Background(), root, workspace.NewParseCache(0), rel, opts)
	if err != nil {
		t.Fatalf("Outline(%s): %v", rel, err)
	}
	if r.File == nil {
		t.Fatalf("Outline(%s): no file outline", rel)
	}
	return r.File
}

// symbolLine renders one symbol as its outline line, without indentation.
func symbolLine(s *Symbol) string {
	l := lineSpan(s.StartLine, s.EndLine) + " " + symbolHead(s)
	if s.Doc != "" {
		l += " // " + s.Doc
	}
	return l
}

func TestOutlineGoFileText(t *testing.T) {
	f := outlineFixture(t, "go", "pricing/pricing.go", OutlineOptions{})
	want := `pricing/pricing.go (57 lines, go)
L4 import fmt
L7 type Money int64 // Money is an amount in cents.
L10 const Currency = "EUR" // Currency is the ISO code every Money in this shop is in.
L12-21 type (...)
  L14-17 struct Discount // Discount takes a share off a price.
  L20 type Rule func(Money) Money // Rule changes a price; rules are applied in order.
L24 func Cents(n int64) Money // Cents returns n cents as Money.
L27-29 method (m Money) String() string // String formats m as "12.34 EUR".
L33-44 func Apply(price Money, rules ...Rule) Money // Apply runs every rule over price, in order, and never returns a
L47-49 method (d Discount) Off() Rule // Off returns a rule that applies d.
L52-57 func Max[T ~int64](a, b T) T // Max returns the larger of two comparable amounts.
read one symbol: read_symbol id=<path>:<line>:<name>, e.g. id=pricing/pricing.go:7:Money
`
	if got := f.Text(); got != want {
		t.Errorf("outline text:\n%s\nwant:\n%s", got, want)
	}
}

func TestOutlinePythonFileText(t *testing.T) {
	f := outlineFixture(t, "python", "inventory/cli.py", OutlineOptions{})
	want := `inventory/cli.py (66 lines, python)
L4-9 import argparse, csv, logging, sys, .models
L11 var log = logging.getLogger(__name__)
L12 call logging.basicConfig(level=logging.INFO)
L14-17 try
  L15 import colorama
  L17 var colorama = None
L19-23 if sys.version_info < (3, 9)
  L20-21 func removeprefix(s, p)
  L23 var removeprefix = str.removeprefix
L26-33 func load(path: str, store: Store) -> int // Read items from a CSV file into store; return how many were read.
L36-51 func report(store: Store, *, low: int = 5, verbose: bool = False) -> str
L54-62 func main(argv=None) -> int
L65-66 if __name__ == "__main__"
  L66 call sys.exit(main())
read one symbol: read_symbol id=<path>:<line>:<name>, e.g. id=inventory/cli.py:20:removeprefix
`
	if got := f.Text(); got != want {
		t.Errorf("outline text:\n%s\nwant:\n%s", got, want)
	}
}

// TestOutlineSymbols checks kinds, names, ranges, signatures, docs and
// decorators of chosen symbols in every language's fixture. name is as
// read_symbol takes it (Type.Member for members).
func TestOutlineSymbols(t *testing.T) {
	tests := []struct {
		ws, file, name, want string
	}{
		// Go
		{"go", "main.go", "verbose", `L14 var verbose = flag.Bool("v", false, "print every it… // verbose turns on per-item output.`},
		{"go", "main.go", "main", `L16-26 func main()`},
		{"go", "store/store.go", "State", `L14 type State int // State says whether an item can be sold.`},
		{"go", "store/store.go", "InStock", `L18 const InStock State = iota // at least one on the shelf`},
		{"go", "store/store.go", "LowStock", `L19 const LowStock`},
		{"go", "store/store.go", "ErrExists", `L26 var ErrExists = errors.New("store: item already exists")`},
		{"go", "store/store.go", "registry", `L29 var registry = map[string]*Store{}`},
		{"go", "store/store.go", "Item", `L32-37 struct Item // Item is one product line.`},
		{"go", "store/store.go", "Repository", `L47-51 interface Repository // Repository is what a report needs from a store.`},
		{"go", "store/store.go", "Repository.List", `L49 method List() []Item // List returns every item, sorted by SKU.`},
		{"go", "store/store.go", "init", `L53-55 func init()`},
		{"go", "store/store.go", "New", `L58-60 func New(name string) *Store // New returns an empty store called name.`},
		{"go", "store/store.go", "Store.Add", `L66-74 method (s *Store) Add(it Item) error // Add puts it on the shelf; adding a SKU twice is an error.`},
		{"go", "store/store.go", "Filter", `L111-119 func Filter[T any](xs []T, keep func(T) bool) []T // Filter keeps the elements of xs for which keep is true.`},
		{"go", "store/report.go", "ReportOptions", `L13-18 struct ReportOptions // ReportOptions tunes Report.`},
		{"go", "store/store_test.go", "TestAddTwice", `L5-13 func TestAddTwice(t *testing.T)`},
		// Python
		{"python", "inventory/__init__.py", "__version__", `L6 var __version__ = "0.3.1"`},
		{"python", "inventory/models.py", "LOW_STOCK", `L9 var LOW_STOCK = 5`},
		{"python", "inventory/models.py", "_registry", `L10 var _registry: dict[str, "Store"] = {}`},
		{"python", "inventory/models.py", "Item", `L17-35 @dataclasses.dataclass(frozen=True) class Item // One product line on the shelf.`},
		{"python", "inventory/models.py", "Item.price", `L26 field price: int = 0`},
		{"python", "inventory/models.py", "Item.value", `L29-32 @property method value(self) -> int // Total value of the stock of this line.`},
		{"python", "inventory/models.py", "NotFound", `L38-39 class NotFound(KeyError) // Raised when a SKU is not in the store.`},
		{"python", "inventory/models.py", "Store.kind", `L45 field kind = "retail"`},
		{"python", "inventory/models.py", "Store.add", `L52-56 method add(self, item: Item) -> None // Put item on the shelf.`},
		{"python", "inventory/models.py", "parse_sku", `L67-72 @staticmethod @functools.lru_cache(maxsize=None) method parse_sku(text: str) -> Optional[str] // Normalise a SKU typed by a human.`},
		{"python", "inventory/models.py", "Store.Stats", `L74-78 class Stats // Counters kept per store.`},
		{"python", "inventory/models.py", "Stats.__init__", `L77-78 method __init__(self)`},
		{"python", "inventory/models.py", "refresh", `L85-88 async func refresh(store: Store) -> None // Reload prices from the network.`},
		{"mixed", "web/cart.js", "total", `L31-33 get method total()`},
		{"python", "inventory/cli.py", "__main__", `L65-66 if __name__ == "__main__"`},
		// TypeScript
		{"typescript", "src/store.ts", "Cents", `L5 type Cents = number // Prices are in cents.`},
		{"typescript", "src/store.ts", "Item", `L11-17 interface Item // One product line on the shelf.`},
		{"typescript", "src/store.ts", "Item.describe", `L16 method describe(): string`},
		{"typescript", "src/store.ts", "State", `L19-23 enum State`},
		{"typescript", "src/store.ts", "LOW_STOCK", `L25 const LOW_STOCK = 5`},
		{"typescript", "src/store.ts", "created", `L26 var created = 0`},
		{"typescript", "src/store.ts", "Store", `L33-59 class Store extends EventEmitter // A named store and its stock.`},
		{"typescript", "src/store.ts", "Store.kind", `L34 static field kind = "retail"`},
		{"typescript", "src/store.ts", "Store.add", `L43-50 @logged method add(item: Item): void // Put an item on the shelf.`},
		{"typescript", "src/store.ts", "Report", `L61-63 class Report<T>`},
		{"typescript", "src/store.ts", "Report.render", `L62 method render(rows: T[]): string`},
		{"typescript", "src/store.ts", "stateOf", `L66-69 func stateOf(it: Item, low = LOW_STOCK): State // stateOf tells how well stocked an item is.`},
		{"typescript", "src/store.ts", "total", `L71-72 func total(items: Item[]): Cents`},
		{"typescript", "src/store.ts", "Format.money", `L75-77 func money(c: Cents): string`},
		// TSX
		{"typescript", "src/app.tsx", "RowProps", `L4 type RowProps = { item: Item; onPick?: (sku: string)…`},
		{"typescript", "src/app.tsx", "Row", `L7-15 func Row({ item, onPick }: RowProps) // Row renders one item.`},
		{"typescript", "src/app.tsx", "Table", `L17-29 func Table({ items })`},
		{"typescript", "src/app.tsx", "App.render", `L32-34 method render()`},
		// JavaScript
		{"mixed", "web/cart.js", "fs", `L4 const fs = require('fs')`},
		{"mixed", "web/cart.js", "CENTS", `L7 const CENTS = 100 // Cents per euro.`},
		{"mixed", "web/cart.js", "Cart", `L14-39 class Cart extends EventEmitter // A shopping cart.`},
		{"mixed", "web/cart.js", "Cart.#lines", `L15 field #lines = []`},
		{"mixed", "web/cart.js", "Cart.add", `L25-29 method add(sku, qty, price) // Add qty of sku at price cents.`},
		{"mixed", "web/cart.js", "fromJSON", `L35-38 static method fromJSON(text)`},
		{"mixed", "web/cart.js", "format", `L42-44 func format(cents) // format renders cents as "12.34".`},
		{"mixed", "web/cart.js", "describe", `L46 func describe(cart)`},
		{"mixed", "web/cart.js", "lines", `L48-50 async func lines(cart)`},
		{"mixed", "web/cart.js", "process.on", `L52 call process.on('exit', () => console.log('bye'))`},
		{"mixed", "web/cart.js", "module.exports", `L55 assign module.exports = { Cart, format, describe }`},
		// Rust
		{"rust", "src/lib.rs", "pricing", `L6 module pricing`},
		{"rust", "src/lib.rs", "LOW_STOCK", `L9 const LOW_STOCK: u32 = 5 // The quantity at or below which an item is low.`},
		{"rust", "src/lib.rs", "GREETING", `L11 var GREETING: &str = "welcome"`},
		{"rust", "src/lib.rs", "Item", `L14-20 #[derive(Debug, Clone, PartialEq)] struct Item // One product line on the shelf.`},
		{"rust", "src/lib.rs", "State", `L23-28 #[derive(Debug, Clone, Copy, PartialEq, Eq)] enum State // How well stocked an item is.`},
		{"rust", "src/lib.rs", "Inventory", `L31-38 trait Inventory // Something that can report its stock.`},
		{"rust", "src/lib.rs", "Inventory.items", `L33 method items(&self) -> Vec<&Item> // Every item, sorted by SKU.`},
		{"rust", "src/lib.rs", "Store::new", `L48-50 func new(name: &str) -> Self // An empty store called ` + "`name`."},
		{"rust", "src/lib.rs", "Store::add", `L53-59 method add(&mut self, item: Item) -> bool // Put an item on the shelf; false if the SKU was taken.`},
		{"rust", "src/lib.rs", "fmt", `L79-81 method fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result`},
		{"rust", "src/lib.rs", "item", `L84-88 macro item`},
		{"rust", "src/lib.rs", "Shelf", `L90 type Shelf<'a> = Vec<&'a Item>`},
		{"rust", "src/lib.rs", "max_of", `L93-95 func max_of<T: PartialOrd>(a: T, b: T) -> T // Largest of two values.`},
		{"rust", "src/lib.rs", "tests", `L97-114 #[cfg(test)] module tests`},
		{"rust", "src/lib.rs", "add_twice_fails", `L101-106 #[test] func add_twice_fails()`},
		{"rust", "src/lib.rs", "empty_name_panics", `L108-113 #[test] #[should_panic] func empty_name_panics()`},
		{"rust", "src/pricing.rs", "Bits", `L16-19 union Bits`},
		// Java
		{"mixed", "java/shop/Inventory.java", "Inventory", `L11-68 @SuppressWarnings("unused") class Inventory implements Iterable<Inventory.Item> // Inventory keeps the stock of one shop.`},
		{"mixed", "java/shop/Inventory.java", "LOW_STOCK", `L14 static field LOW_STOCK int = 5 // Quantity at or below which an item is low.`},
		{"mixed", "java/shop/Inventory.java", "static", `L18-20 init static`},
		{"mixed", "java/shop/Inventory.java", "Item", `L23 record Item(String sku, String name, long price, int qty) // One product line.`},
		{"mixed", "java/shop/Inventory.java", "State.needsOrder", `L29-31 method needsOrder() boolean`},
		{"mixed", "java/shop/Inventory.java", "Listener.removed", `L38 method removed(String sku) void`},
		{"mixed", "java/shop/Inventory.java", "Inventory.Inventory", `L41 method Inventory()`},
		{"mixed", "java/shop/Inventory.java", "add", `L48-51 @Deprecated method add(Item item) void // Adds an item.`},
		{"mixed", "java/shop/Inventory.java", "iterator", `L53-56 @Override method iterator() java.util.Iterator<Item>`},
		{"mixed", "java/shop/Inventory.java", "sorted", `L58-63 static method sorted<T extends Comparable<T>>(List<T> xs) List<T>`},
		{"mixed", "java/shop/Inventory.java", "Audited.value", `L66 method value() String`},
		// C
		{"mixed", "native/ring.h", "RING_CAP", `L8 macro RING_CAP 64`},
		{"mixed", "native/ring.h", "RING_NEXT", `L9 macro RING_NEXT(i) (((i) + 1) % RING_CAP)`},
		{"mixed", "native/ring.h", "ring_t", `L12-15 struct ring_t = struct ring // A ring buffer; zero value is empty.`},
		{"mixed", "native/ring.h", "ring_err", `L17 enum ring_err`},
		{"mixed", "native/ring.h", "ring_push", `L20 func ring_push(ring_t *r, int v) enum ring_err // Push v; RING_FULL when there is no room.`},
		{"mixed", "native/ring.c", "ring_version", `L5 var ring_version char* = "1.0"`},
		{"mixed", "native/ring.c", "stats", `L7-10 struct stats`},
		{"mixed", "native/ring.c", "ring_visit", `L12 type ring_visit = int (*ring_visit)(int v, void *arg)`},
		{"mixed", "native/ring.c", "ring_each", `L37-46 func ring_each(ring_t *r, ring_visit fn, void *arg) int // Call fn on every element, oldest first.`},
		{"mixed", "native/ring.c", "ring_name", `L48-52 func ring_name(void) char*`},
		// C++
		{"mixed", "native/ledger.hpp", "shop", `L8-51 namespace shop`},
		{"mixed", "native/ledger.hpp", "Cents", `L12 type Cents = long long // An amount in cents.`},
		{"mixed", "native/ledger.hpp", "Entry.to", `L16 field to std::string`},
		{"mixed", "native/ledger.hpp", "Ledger", `L21-41 class Ledger // Ledger records entries and answers balances.`},
		{"mixed", "native/ledger.hpp", "~Ledger", `L25 method ~Ledger()`},
		{"mixed", "native/ledger.hpp", "Ledger.book", `L28 method book(const Entry& e) std::size_t // Record an entry; returns its index.`},
		{"mixed", "native/ledger.hpp", "balance", `L29 method balance(const std::string& account) const Cents`},
		{"mixed", "native/ledger.hpp", "each", `L31-34 template <typename F> method each(F fn) const void`},
		{"mixed", "native/ledger.hpp", "kVersion", `L36 field kVersion int = 2`},
		{"mixed", "native/ledger.hpp", "clamp", `L43-46 template <typename T> func clamp(T v, T lo, T hi) T`},
		{"mixed", "native/ledger.hpp", "Side", `L48 enum Side`},
		{"mixed", "native/ledger.cpp", "Ledger::book", `L16-20 func Ledger::book(const Entry& e) std::size_t // book appends e and returns its index.`},
		{"mixed", "native/ledger.cpp", "bookings", `L8 var bookings int = 0`},
		{"mixed", "native/ledger.cpp", "main", `L33-37 func main() int`},
	}
	outlines := map[string]*FileOutline{}
	for _, tt := range tests {
		t.Run(tt.ws+"/"+tt.file+":"+tt.name, func(t *testing.T) {
			key := tt.ws + "/" + tt.file
			f := outlines[key]
			if f == nil {
				f = outlineFixture(t, tt.ws, tt.file, OutlineOptions{})
				outlines[key] = f
			}
			ms := findSymbols(f.Symbols, tt.name)
			if len(ms) == 0 {
				t.Fatalf("no symbol %s in:\n%s", tt.name, f.Text())
			}
			if got := symbolLine(ms[0]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestOutlineImports checks the one summary line per file (or block) for
// imports, in each language.
func TestOutlineImports(t *testing.T) {
	tests := []struct{ ws, file, want string }{
		{"go", "store/store.go", "L4-11 import errors, fmt, sort, sync, example.com/shop/pricing"},
		{"python", "inventory/models.py", "L3-7 import __future__, dataclasses, functools, typing"},
		{"typescript", "src/store.ts", "L1-2 import events, ./clock"},
		{"rust", "src/lib.rs", "L3-4 import std::collections::HashMap, std::fmt"},
		{"mixed", "java/shop/Inventory.java", "L3-5 import java.util.ArrayList, java.util.List, java.util.Map"},
		{"mixed", "native/ring.h", "L5-6 import <stddef.h>, <stdbool.h>"},
		{"mixed", "native/ledger.cpp", "L1-3 import ledger.hpp, <utility>"},
	}
	for _, tt := range tests {
		f := outlineFixture(t, tt.ws, tt.file, OutlineOptions{})
		if len(f.Symbols) == 0 || f.Symbols[0].Kind != "import" {
			t.Errorf("%s: first symbol is not the import summary:\n%s", tt.file, f.Text())
			continue
		}
		if got := symbolLine(f.Symbols[0]); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestOutlineLongFunctionBlocks(t *testing.T) {
	f := outlineFixture(t, "go", "store/report.go", OutlineOptions{})
	report := findSymbols(f.Symbols, "Report")[0]
	var got []string
	for _, c := range report.Children {
		got = append(got, symbolLine(c))
	}
	want := []string{
		"L24-26 if opts.LowStock <= 0",
		"L33-35 if opts.Deadline > 0",
		"L36-41 select",
		"L58-82 for _, it := range list",
		"L84-87 if len(list) == 0",
		"L90-113 if opts.Verbose",
		"L116-127 if len(low) > 0 || len(gone) > 0",
		"L132-134 if haveCheap",
		"L138-154 for _, st := range []State{InStock, LowStock, SoldOut}",
		"L162-164 if units > 0",
		"L169-180 switch",
		"L183-185 for i := 0; i < 1; i++",
	}
	if d := diffSymbolLines(want, got); d != "" {
		t.Errorf("blocks of Report (-want +got):\n%s", d)
	}
	// Shorter functions list no blocks.
	for _, s := range f.Symbols {
		if s.Name != "Report" && len(s.Children) > 0 && s.Kind == "func" {
			t.Errorf("%s has block children though it is short", s.Name)
		}
	}

	// The threshold is an option, and every language has blocks.
	tests := []struct {
		ws, file, name string
		want           []string
	}{
		{"python", "inventory/cli.py", "report", []string{"L39-44 for item in store", "L45-46 while len(lines) < 3", "L47-50 try"}},
		{"rust", "src/lib.rs", "state_of", []string{"L62-66 match item.qty"}},
		{"mixed", "native/ring.c", "ring_each", []string{"L40-44 for (size_t i = r->head; i != r->tail; i = RING_NEXT(i))"}},
		{"mixed", "native/ledger.cpp", "Ledger::balance", []string{"L24-27 for (const auto& e : entries_)"}},
		{"typescript", "src/store.ts", "Store.add", []string{"L45-47 if (this.items.has(item.sku))"}},
	}
	for _, tt := range tests {
		f := outlineFixture(t, tt.ws, tt.file, OutlineOptions{LongFunctionLines: 3})
		ms := findSymbols(f.Symbols, tt.name)
		if len(ms) == 0 {
			t.Errorf("%s: no %s", tt.file, tt.name)
			continue
		}
		var got []string
		for _, c := range ms[0].Children {
			got = append(got, symbolLine(c))
		}
		if d := diffSymbolLines(tt.want, got); d != "" {
			t.Errorf("%s %s blocks (-want +got):\n%s", tt.file, tt.name, d)
		}
	}
}

func TestOutlineSyntaxErrors(t *testing.T) {
	tests := []struct {
		file     string
		symbols  []string // top-level symbol lines that must be there
		unparsed []LineRange
		footer   string
	}{
		{"broken/broken.go", []string{"L4-6 func Good() int // Good parses fine."}, []LineRange{{8, 15}}, "syntax errors at L8-15"},
		{"broken/broken.py", []string{"L1 import os", "L4-5 func good()", "L12-14 class After"}, []LineRange{{8, 8}}, "syntax errors at L8"},
		{"broken/broken.ts", []string{"L1-3 func ok(): number", "L9-11 class Later"}, []LineRange{{5, 11}}, "syntax errors at L5-11"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := outlineFixture(t, "mixed", tt.file, OutlineOptions{})
			lines := map[string]bool{}
			for _, s := range f.Symbols {
				lines[symbolLine(s)] = true
			}
			for _, w := range tt.symbols {
				if !lines[w] {
					t.Errorf("missing %q in:\n%s", w, f.Text())
				}
			}
			if len(f.Unparsed) != len(tt.unparsed) {
				t.Fatalf("unparsed %v, want %v", f.Unparsed, tt.unparsed)
			}
			for i := range f.Unparsed {
				if f.Unparsed[i] != tt.unparsed[i] {
					t.Errorf("unparsed %v, want %v", f.Unparsed, tt.unparsed)
				}
			}
			if !strings.Contains(f.Text(), "\n"+tt.footer+"\n") {
				t.Errorf("no %q line in:\n%s", tt.footer, f.Text())
			}
		})
	}
}

func TestOutlineDirectory(t *testing.T) {
	root, err := workspace.Open(fixtureDir(t, "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	cache := workspace.NewParseCache(0)
	r, err := Outline(context.Background(), root, cache, ".", OutlineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{
		". (9 source files, 3 other)\n",
		"broken/broken.go (15 lines, go) [syntax errors]: func Good L4, func Bad L8\n",
		"java/shop/Inventory.java (68 lines, java): class Inventory L11\n",
		// namespace members are listed, not hidden inside the namespace
		"native/ledger.hpp (51 lines, cpp): namespace shop L8, namespace ledger L9, type Cents L12, struct Entry L15, class Ledger L21, func clamp L43, enum Side L48\n",
		"web/cart.js (55 lines, javascript): const { EventEmitter } L3, const fs L4, const CENTS L7, var nextId L8, class Cart L14, func format L42, func describe L46, func lines L48, call process.on L52, call fs.mkdirSync L53, assign module.exports L55\n",
		"other files: README.md, data.bin, notes.txt\n",
		"signatures and line ranges of one file: outline path=broken/broken.go\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("directory outline lacks %q:\n%s", want, text)
		}
	}

	r, err = Outline(context.Background(), root, cache, "native", OutlineOptions{MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Dir.Files) != 2 || r.Dir.SourceFiles != 4 {
		t.Errorf("cut at 2: got %d files of %d", len(r.Dir.Files), r.Dir.SourceFiles)
	}
	if !strings.Contains(r.Text(), "[cut at 2 of 4 source files; outline a subdirectory or single files for the rest: 2 files directly in native]\n") {
		t.Errorf("no cut note:\n%s", r.Text())
	}

	r, err = Outline(context.Background(), root, cache, ".", OutlineOptions{MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[cut at 3 of 9 source files; outline a subdirectory or single files for the rest: java (1), native (4), web (1)]\n"; !strings.Contains(r.Text(), want) {
		t.Errorf("no %q in:\n%s", want, r.Text())
	}

	// Go groups and methods in a directory map.
	root, _ = workspace.Open(fixtureDir(t, "go"))
	r, err = Outline(context.Background(), root, cache, "store", OutlineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "store/store.go (119 lines, go): type State L14, const (InStock, LowStock, SoldOut) L17, var (ErrNotFound, ErrExists) L24, var registry L29, struct Item L32, struct Store L40, interface Repository L47, func init L53, func New L58, method Store.Name L63, method Store.Add L66,"; !strings.Contains(r.Text(), want) {
		t.Errorf("directory outline lacks %q:\n%s", want, r.Text())
	}
}

// TestOutlineDirectoryHonoursGitignore uses a workspace made for the test:
// a .gitignore in a fixture would hide its own files from git.
func TestOutlineDirectoryHonoursGitignore(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "gen/\n")
	write("a.go", "package a\n\nfunc A() {}\n")
	write("gen/b.go", "package gen\n\nfunc B() {}\n")
	root, _ := workspace.Open(dir)
	r, err := Outline(context.Background(), root, workspace.NewParseCache(0), ".", OutlineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); !strings.Contains(text, "a.go (3 lines, go): func A L3\n") || strings.Contains(text, "gen/") {
		t.Errorf("want a.go only:\n%s", text)
	}
}

func TestOutlineErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "blob.go"), []byte("package x\x00\x01\x02"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.py"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "data.bin"), []byte("\x00\x01binary"), 0o644)
	root, _ := workspace.Open(dir)
	cache := workspace.NewParseCache(0)
	tests := []struct {
		path string
		want []string
		is   error
	}{
		{"notes.txt", []string{`no outline for ".txt" files`, "c, cpp, go, java, javascript, python, rust, tsx, typescript", "use read"}, nil},
		{"Makefile", []string{"no outline for files without an extension", "use read"}, nil},
		{"blob.go", []string{"binary file", "blob.go"}, workspace.ErrBinary},
		{"data.bin", []string{"binary file", "data.bin"}, workspace.ErrBinary}, // not "use read": read refuses it too
		{"nope.go", []string{"no such file: nope.go"}, os.ErrNotExist},
		{"../outside.go", []string{"outside the workspace root"}, workspace.ErrOutsideRoot},
	}
	for _, tt := range tests {
		_, err := Outline(context.Background(), root, cache, tt.path, OutlineOptions{})
		if err == nil {
			t.Errorf("%s: no error", tt.path)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.path, err, w)
			}
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: error %q is not %v", tt.path, err, tt.is)
		}
	}

	// An empty file is an answer, not an error, and its JSON has [] symbols.
	r, err := Outline(context.Background(), root, cache, "empty.py", OutlineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text(), "empty.py (0 lines, python)\nno declarations or top-level statements; use read to see the file\n") {
		t.Errorf("empty file:\n%s", r.Text())
	}
	js, _ := json.Marshal(r)
	if !strings.Contains(string(js), `"symbols":[]`) {
		t.Errorf("empty file JSON: %s", js)
	}
}

func TestOutlineUsesParseCache(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	cache := workspace.NewParseCache(0)
	for i := 0; i < 3; i++ {
		if _, err := Outline(context.Background(), root, cache, "store/store.go", OutlineOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if st := cache.Stats(); st.Misses != 1 || st.Hits != 2 {
		t.Errorf("cache stats %+v: want 1 miss then 2 hits", st)
	}
}
