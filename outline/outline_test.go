package outline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/syntax"
	"cchub/textfmt"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// outlineFixture outlines one file of a fixture workspace.
func outlineFixture(t *testing.T, ws, rel string, opts Options) *File {
	t.Helper()
	root, err := workspace.Open(fixtureDir(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Of(context.Background(), root, syntax.NewParseCache(0), rel, opts)
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
	l := textfmt.Span(s.StartLine, s.EndLine) + " "
	for _, d := range s.Decorators {
		l += d + " "
	}
	l += head(s)
	if s.Doc != "" {
		l += " // " + s.Doc
	}
	return l
}

func TestOutlineGoFileText(t *testing.T) {
	f := outlineFixture(t, "go", "pricing/pricing.go", Options{})
	want := `pricing/pricing.go (57 lines, go)
4 import fmt
7 type Money int64
10 const Currency
12-21 type (...)
  14-17 struct Discount
  20 type Rule func(Money) Money
24 Cents(n int64) Money
27-29 Money.String() string
33-44 Apply(price Money, rules ...Rule) Money
47-49 Discount.Off() Rule
52-57 Max[T ~int64](a, b T) T
read one: read_symbol id=pricing/pricing.go:Cents
`
	if got := f.Text(); got != want {
		t.Errorf("outline text:\n%s\nwant:\n%s", got, want)
	}
}

func TestOutlineGoFileDetailText(t *testing.T) {
	root, err := workspace.Open(fixtureDir(t, "go"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Of(context.Background(), root, syntax.NewParseCache(0), "pricing/pricing.go", Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `pricing/pricing.go (57 lines, go)
4 import fmt
7 type Money int64  // Money is an amount in cents.
10 const Currency = "EUR"  // Currency is the ISO code every Money in this shop is in.
12-21 type (...)
  14-17 struct Discount  // Discount takes a share off a price.
  20 type Rule func(Money) Money  // Rule changes a price; rules are applied in order.
24 Cents(n int64) Money  // Cents returns n cents as Money.
27-29 Money.String() string  // String formats m as "12.34 EUR".
33-44 Apply(price Money, rules ...Rule) Money  // Apply runs every rule over price, in order, and never returns a negative amount.
47-49 Discount.Off() Rule  // Off returns a rule that applies d.
52-57 Max[T ~int64](a, b T) T  // Max returns the larger of two comparable amounts.
read one: read_symbol id=pricing/pricing.go:Cents
`
	if got := r.Text(); got != want {
		t.Errorf("outline text:\n%s\nwant:\n%s", got, want)
	}
}

func TestOutlinePythonFileText(t *testing.T) {
	f := outlineFixture(t, "python", "inventory/cli.py", Options{})
	want := `inventory/cli.py (66 lines, python)
4-9 import argparse, csv, logging, sys, .models
11 var log
12 call logging.basicConfig(level=logging.INFO)
14-17 try
  15 import colorama
  17 var colorama
19-23 if sys.version_info < (3, 9)
  20-21 removeprefix(s, p)
  23 var removeprefix
26-33 load(path: str, store: Store) -> int
36-51 report(store: Store, *, low: int = 5, verbose: bool = False) -> str
54-62 main(argv=None) -> int
65-66 if __name__ == "__main__"
  66 call sys.exit(main())
read one: read_symbol id=inventory/cli.py:load
`
	if got := f.Text(); got != want {
		t.Errorf("outline text:\n%s\nwant:\n%s", got, want)
	}
	// Docstrings follow the file's own comment marker.
	root, _ := workspace.Open(fixtureDir(t, "python"))
	r, err := Of(context.Background(), root, syntax.NewParseCache(0), "inventory/cli.py", Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\n26-33 load(path: str, store: Store) -> int  # Read items from a CSV file into store; return how many were read.\n"; !strings.Contains(r.Text(), want) {
		t.Errorf("detail outline lacks %q:\n%s", want, r.Text())
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
		{"go", "main.go", "verbose", `14 var verbose = flag.Bool("v", false, "print every it… // verbose turns on per-item output.`},
		{"go", "main.go", "main", `16-26 main()`},
		{"go", "store/store.go", "State", `14 type State int // State says whether an item can be sold.`},
		{"go", "store/store.go", "InStock", `18 const InStock State = iota // at least one on the shelf`},
		{"go", "store/store.go", "LowStock", `19 const LowStock`},
		{"go", "store/store.go", "ErrExists", `26 var ErrExists = errors.New("store: item already exists")`},
		{"go", "store/store.go", "registry", `29 var registry = map[string]*Store{}`},
		{"go", "store/store.go", "Item", `32-37 struct Item // Item is one product line.`},
		{"go", "store/store.go", "Repository", `47-51 interface Repository // Repository is what a report needs from a store.`},
		{"go", "store/store.go", "Repository.List", `49 List() []Item // List returns every item, sorted by SKU.`},
		{"go", "store/store.go", "init", `53-55 init()`},
		{"go", "store/store.go", "New", `58-60 New(name string) *Store // New returns an empty store called name.`},
		{"go", "store/store.go", "Store.Add", `66-74 Store.Add(it Item) error // Add puts it on the shelf; adding a SKU twice is an error.`},
		{"go", "store/store.go", "Filter", `111-119 Filter[T any](xs []T, keep func(T) bool) []T // Filter keeps the elements of xs for which keep is true.`},
		{"go", "store/report.go", "ReportOptions", `13-18 struct ReportOptions // ReportOptions tunes Report.`},
		{"go", "store/store_test.go", "TestAddTwice", `5-13 TestAddTwice(t *testing.T)`},
		// Python
		{"python", "inventory/__init__.py", "__version__", `6 var __version__ = "0.3.1"`},
		{"python", "inventory/models.py", "LOW_STOCK", `9 var LOW_STOCK = 5`},
		{"python", "inventory/models.py", "_registry", `10 var _registry: dict[str, "Store"] = {}`},
		{"python", "inventory/models.py", "Item", `17-35 @dataclasses.dataclass(frozen=True) class Item // One product line on the shelf.`},
		{"python", "inventory/models.py", "Item.price", `26 field price: int = 0`},
		{"python", "inventory/models.py", "Item.value", `29-32 @property value(self) -> int // Total value of the stock of this line.`},
		{"python", "inventory/models.py", "NotFound", `38-39 class NotFound(KeyError) // Raised when a SKU is not in the store.`},
		{"python", "inventory/models.py", "Store.kind", `45 field kind = "retail"`},
		{"python", "inventory/models.py", "Store.add", `52-56 add(self, item: Item) -> None // Put item on the shelf.`},
		{"python", "inventory/models.py", "parse_sku", `67-72 @staticmethod @functools.lru_cache(maxsize=None) parse_sku(text: str) -> Optional[str] // Normalise a SKU typed by a human.`},
		{"python", "inventory/models.py", "Store.Stats", `74-78 class Stats // Counters kept per store.`},
		{"python", "inventory/models.py", "Stats.__init__", `77-78 __init__(self)`},
		{"python", "inventory/models.py", "refresh", `85-88 async refresh(store: Store) -> None // Reload prices from the network.`},
		{"mixed", "web/cart.js", "total", `31-33 get total()`},
		{"python", "inventory/cli.py", "__main__", `65-66 if __name__ == "__main__"`},
		// TypeScript
		{"typescript", "src/store.ts", "Cents", `5 type Cents = number // Prices are in cents.`},
		{"typescript", "src/store.ts", "Item", `11-17 interface Item // One product line on the shelf.`},
		{"typescript", "src/store.ts", "Item.describe", `16 describe(): string`},
		{"typescript", "src/store.ts", "State", `19-23 enum State`},
		{"typescript", "src/store.ts", "LOW_STOCK", `25 const LOW_STOCK = 5`},
		{"typescript", "src/store.ts", "created", `26 var created = 0`},
		{"typescript", "src/store.ts", "Store", `33-59 class Store extends EventEmitter // A named store and its stock.`},
		{"typescript", "src/store.ts", "Store.kind", `34 static field kind = "retail"`},
		{"typescript", "src/store.ts", "Store.add", `43-50 @logged add(item: Item): void // Put an item on the shelf.`},
		{"typescript", "src/store.ts", "Report", `61-63 class Report<T>`},
		{"typescript", "src/store.ts", "Report.render", `62 render(rows: T[]): string`},
		{"typescript", "src/store.ts", "stateOf", `66-69 stateOf(it: Item, low = LOW_STOCK): State // stateOf tells how well stocked an item is.`},
		{"typescript", "src/store.ts", "total", `71-72 total(items: Item[]): Cents`},
		{"typescript", "src/store.ts", "Format.money", `75-77 money(c: Cents): string`},
		// TSX
		{"typescript", "src/app.tsx", "RowProps", `4 type RowProps = { item: Item; onPick?: (sku: string)…`},
		{"typescript", "src/app.tsx", "Row", `7-15 Row({ item, onPick }: RowProps) // Row renders one item.`},
		{"typescript", "src/app.tsx", "Table", `17-29 Table({ items })`},
		{"typescript", "src/app.tsx", "App.render", `32-34 render()`},
		// JavaScript
		{"mixed", "web/cart.js", "fs", `4 const fs = require('fs')`},
		{"mixed", "web/cart.js", "CENTS", `7 const CENTS = 100 // Cents per euro.`},
		{"mixed", "web/cart.js", "Cart", `14-39 class Cart extends EventEmitter // A shopping cart.`},
		{"mixed", "web/cart.js", "Cart.#lines", `15 field #lines = []`},
		{"mixed", "web/cart.js", "Cart.add", `25-29 add(sku, qty, price) // Add qty of sku at price cents.`},
		{"mixed", "web/cart.js", "fromJSON", `35-38 static fromJSON(text)`},
		{"mixed", "web/cart.js", "format", `42-44 format(cents) // format renders cents as "12.34".`},
		{"mixed", "web/cart.js", "describe", `46 describe(cart)`},
		{"mixed", "web/cart.js", "lines", `48-50 async lines(cart)`},
		{"mixed", "web/cart.js", "process.on", `52 call process.on('exit', () => console.log('bye'))`},
		{"mixed", "web/cart.js", "module.exports", `55 assign module.exports = { Cart, format, describe }`},
		// Rust
		{"rust", "src/lib.rs", "pricing", `6 module pricing`},
		{"rust", "src/lib.rs", "LOW_STOCK", `9 const LOW_STOCK: u32 = 5 // The quantity at or below which an item is low.`},
		{"rust", "src/lib.rs", "GREETING", `11 var GREETING: &str = "welcome"`},
		{"rust", "src/lib.rs", "Item", `14-20 #[derive(Debug, Clone, PartialEq)] struct Item // One product line on the shelf.`},
		{"rust", "src/lib.rs", "State", `23-28 #[derive(Debug, Clone, Copy, PartialEq, Eq)] enum State // How well stocked an item is.`},
		{"rust", "src/lib.rs", "Inventory", `31-38 trait Inventory // Something that can report its stock.`},
		{"rust", "src/lib.rs", "Inventory.items", `33 items(&self) -> Vec<&Item> // Every item, sorted by SKU.`},
		{"rust", "src/lib.rs", "Store::new", `48-50 new(name: &str) -> Self // An empty store called ` + "`name`."},
		{"rust", "src/lib.rs", "Store::add", `53-59 add(&mut self, item: Item) -> bool // Put an item on the shelf; false if the SKU was taken.`},
		{"rust", "src/lib.rs", "fmt", `79-81 fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result`},
		{"rust", "src/lib.rs", "item", `84-88 macro item`},
		{"rust", "src/lib.rs", "Shelf", `90 type Shelf<'a> = Vec<&'a Item>`},
		{"rust", "src/lib.rs", "max_of", `93-95 max_of<T: PartialOrd>(a: T, b: T) -> T // Largest of two values.`},
		{"rust", "src/lib.rs", "tests", `97-114 #[cfg(test)] module tests`},
		{"rust", "src/lib.rs", "add_twice_fails", `101-106 #[test] add_twice_fails()`},
		{"rust", "src/lib.rs", "empty_name_panics", `108-113 #[test] #[should_panic] empty_name_panics()`},
		{"rust", "src/pricing.rs", "Bits", `16-19 union Bits`},
		// Java
		{"mixed", "java/shop/Inventory.java", "Inventory", `11-68 @SuppressWarnings("unused") class Inventory implements Iterable<Inventory.Item> // Inventory keeps the stock of one shop.`},
		{"mixed", "java/shop/Inventory.java", "LOW_STOCK", `14 static field LOW_STOCK int = 5 // Quantity at or below which an item is low.`},
		{"mixed", "java/shop/Inventory.java", "static", `18-20 init static`},
		{"mixed", "java/shop/Inventory.java", "Item", `23 record Item(String sku, String name, long price, int qty) // One product line.`},
		{"mixed", "java/shop/Inventory.java", "State.needsOrder", `29-31 needsOrder() boolean`},
		{"mixed", "java/shop/Inventory.java", "Listener.removed", `38 removed(String sku) void`},
		{"mixed", "java/shop/Inventory.java", "Inventory.Inventory", `41 Inventory()`},
		{"mixed", "java/shop/Inventory.java", "add", `48-51 @Deprecated add(Item item) void // Adds an item.`},
		{"mixed", "java/shop/Inventory.java", "iterator", `53-56 @Override iterator() java.util.Iterator<Item>`},
		{"mixed", "java/shop/Inventory.java", "sorted", `58-63 static sorted<T extends Comparable<T>>(List<T> xs) List<T>`},
		{"mixed", "java/shop/Inventory.java", "Audited.value", `66 value() String`},
		// C
		{"mixed", "native/ring.h", "RING_CAP", `8 macro RING_CAP 64`},
		{"mixed", "native/ring.h", "RING_NEXT", `9 macro RING_NEXT(i) (((i) + 1) % RING_CAP)`},
		{"mixed", "native/ring.h", "ring_t", `12-15 struct ring_t = struct ring // A ring buffer; zero value is empty.`},
		{"mixed", "native/ring.h", "ring_err", `17 enum ring_err`},
		{"mixed", "native/ring.h", "ring_push", `20 ring_push(ring_t *r, int v) enum ring_err // Push v; RING_FULL when there is no room.`},
		{"mixed", "native/ring.c", "ring_version", `5 var ring_version char* = "1.0"`},
		{"mixed", "native/ring.c", "stats", `7-10 struct stats`},
		{"mixed", "native/ring.c", "ring_visit", `12 type ring_visit = int (*ring_visit)(int v, void *arg)`},
		{"mixed", "native/ring.c", "ring_each", `37-46 ring_each(ring_t *r, ring_visit fn, void *arg) int // Call fn on every element, oldest first.`},
		{"mixed", "native/ring.c", "ring_name", `48-52 ring_name(void) char*`},
		// C++
		{"mixed", "native/ledger.hpp", "shop", `8-51 namespace shop`},
		{"mixed", "native/ledger.hpp", "Cents", `12 type Cents = long long // An amount in cents.`},
		{"mixed", "native/ledger.hpp", "Entry.to", `16 field to std::string`},
		{"mixed", "native/ledger.hpp", "Ledger", `21-41 class Ledger // Ledger records entries and answers balances.`},
		{"mixed", "native/ledger.hpp", "~Ledger", `25 ~Ledger()`},
		{"mixed", "native/ledger.hpp", "Ledger.book", `28 book(const Entry& e) std::size_t // Record an entry; returns its index.`},
		{"mixed", "native/ledger.hpp", "balance", `29 balance(const std::string& account) const Cents`},
		{"mixed", "native/ledger.hpp", "each", `31-34 template <typename F> each(F fn) const void`},
		{"mixed", "native/ledger.hpp", "kVersion", `36 field kVersion int = 2`},
		{"mixed", "native/ledger.hpp", "clamp", `43-46 template <typename T> clamp(T v, T lo, T hi) T`},
		{"mixed", "native/ledger.hpp", "Side", `48 enum Side`},
		{"mixed", "native/ledger.cpp", "Ledger::book", `16-20 Ledger::book(const Entry& e) std::size_t // book appends e and returns its index.`},
		{"mixed", "native/ledger.cpp", "bookings", `8 var bookings int = 0`},
		{"mixed", "native/ledger.cpp", "main", `33-37 main() int`},
	}
	outlines := map[string]*File{}
	for _, tt := range tests {
		t.Run(tt.ws+"/"+tt.file+":"+tt.name, func(t *testing.T) {
			key := tt.ws + "/" + tt.file
			f := outlines[key]
			if f == nil {
				f = outlineFixture(t, tt.ws, tt.file, Options{})
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
		{"go", "store/store.go", "4-11 import errors, fmt, sort, sync, example.com/shop/pricing"},
		{"python", "inventory/models.py", "3-7 import __future__, dataclasses, functools, typing"},
		{"typescript", "src/store.ts", "1-2 import events, ./clock"},
		{"rust", "src/lib.rs", "3-4 import std::collections::HashMap, std::fmt"},
		{"mixed", "java/shop/Inventory.java", "3-5 import java.util.ArrayList, java.util.List, java.util.Map"},
		{"mixed", "native/ring.h", "5-6 import <stddef.h>, <stdbool.h>"},
		{"mixed", "native/ledger.cpp", "1-3 import ledger.hpp, <utility>"},
	}
	for _, tt := range tests {
		f := outlineFixture(t, tt.ws, tt.file, Options{})
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
	f := outlineFixture(t, "go", "store/report.go", Options{})
	report := findSymbols(f.Symbols, "Report")[0]
	var got []string
	for _, c := range report.Children {
		got = append(got, symbolLine(c))
	}
	want := []string{
		"24-26 if opts.LowStock <= 0",
		"33-35 if opts.Deadline > 0",
		"36-41 select",
		"58-82 for _, it := range list",
		"84-87 if len(list) == 0",
		"90-113 if opts.Verbose",
		"116-127 if len(low) > 0 || len(gone) > 0",
		"132-134 if haveCheap",
		"138-154 for _, st := range []State{InStock, LowStock, SoldOut}",
		"162-164 if units > 0",
		"169-180 switch",
		"183-185 for i := 0; i < 1; i++",
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
		{"python", "inventory/cli.py", "report", []string{"39-44 for item in store", "45-46 while len(lines) < 3", "47-50 try"}},
		{"rust", "src/lib.rs", "state_of", []string{"62-66 match item.qty"}},
		{"mixed", "native/ring.c", "ring_each", []string{"40-44 for (size_t i = r->head; i != r->tail; i = RING_NEXT(i))"}},
		{"mixed", "native/ledger.cpp", "Ledger::balance", []string{"24-27 for (const auto& e : entries_)"}},
		{"typescript", "src/store.ts", "Store.add", []string{"45-47 if (this.items.has(item.sku))"}},
	}
	for _, tt := range tests {
		f := outlineFixture(t, tt.ws, tt.file, Options{LongFunctionLines: 3})
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
		{"broken/broken.go", []string{"4-6 Good() int // Good parses fine."}, []LineRange{{8, 15}}, "syntax errors at lines 8-15"},
		{"broken/broken.py", []string{"1 import os", "4-5 good()", "12-14 class After"}, []LineRange{{8, 8}}, "syntax errors at lines 8"},
		{"broken/broken.ts", []string{"1-3 ok(): number", "9-11 class Later"}, []LineRange{{5, 11}}, "syntax errors at lines 5-11"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f := outlineFixture(t, "mixed", tt.file, Options{})
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
	cache := syntax.NewParseCache(0)
	r, err := Of(context.Background(), root, cache, ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := r.Text()
	for _, want := range []string{
		". (9 source files, 3 other)\n",
		"broken/broken.go (15 lines, go) [syntax errors]: 4 func Good, 8 func Bad\n",
		"java/shop/Inventory.java (68 lines, java): 11 class Inventory\n",
		// namespace members are listed, not hidden inside the namespace
		"native/ledger.hpp (51 lines, cpp): 8 namespace shop, 9 namespace ledger, 12 type Cents, 15 struct Entry, 21 class Ledger, 43 func clamp, 48 enum Side\n",
		"web/cart.js (55 lines, javascript): 3 const { EventEmitter }, 4 const fs, 7 const CENTS, 8 var nextId, 14 class Cart, 42 func format, 46 func describe, 48 func lines, 52 call process.on, 53 call fs.mkdirSync, 55 assign module.exports\n",
		"other files: README.md, data.bin, notes.txt\n",
		"signatures and line ranges of one file: outline path=broken/broken.go\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("directory outline lacks %q:\n%s", want, text)
		}
	}

	r, err = Of(context.Background(), root, cache, "native", Options{MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Dir.Files) != 2 || r.Dir.SourceFiles != 4 {
		t.Errorf("cut at 2: got %d files of %d", len(r.Dir.Files), r.Dir.SourceFiles)
	}
	if !strings.Contains(r.Text(), "[cut at 2 of 4 source files; outline a subdirectory or single files for the rest: 2 files directly in native]\n") {
		t.Errorf("no cut note:\n%s", r.Text())
	}

	r, err = Of(context.Background(), root, cache, ".", Options{MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[cut at 3 of 9 source files; outline a subdirectory or single files for the rest: java (1), native (4), web (1)]\n"; !strings.Contains(r.Text(), want) {
		t.Errorf("no %q in:\n%s", want, r.Text())
	}

	// Go groups and methods in a directory map.
	root, _ = workspace.Open(fixtureDir(t, "go"))
	r, err = Of(context.Background(), root, cache, "store", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "store/store.go (119 lines, go): 14 type State, 17 const (InStock, LowStock, SoldOut), 24 var (ErrNotFound, ErrExists), 29 var registry, 32 struct Item, 40 struct Store, 47 interface Repository, 53 func init, 58 func New, 63 method Store.Name, 66 method Store.Add,"; !strings.Contains(r.Text(), want) {
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
	r, err := Of(context.Background(), root, syntax.NewParseCache(0), ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Text(); !strings.Contains(text, "a.go (3 lines, go): 3 func A\n") || strings.Contains(text, "gen/") {
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
	cache := syntax.NewParseCache(0)
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
		_, err := Of(context.Background(), root, cache, tt.path, Options{})
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
	r, err := Of(context.Background(), root, cache, "empty.py", Options{})
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
	cache := syntax.NewParseCache(0)
	for i := 0; i < 3; i++ {
		if _, err := Of(context.Background(), root, cache, "store/store.go", Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if st := cache.Stats(); st.Misses != 1 || st.Hits != 2 {
		t.Errorf("cache stats %+v: want 1 miss then 2 hits", st)
	}
}

// TestOutlineMatch keeps the symbols a name filter matches and the
// symbols that contain them; in a directory, only files that have one.
func TestOutlineMatch(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	cache := syntax.NewParseCache(0)
	ctx := context.Background()
	r, err := Of(ctx, root, cache, "store/store.go", Options{Match: "add"})
	if err != nil {
		t.Fatal(err)
	}
	want := "store/store.go (119 lines, go)\n66-74 Store.Add(it Item) error\nread one: read_symbol id=store/store.go:Store.Add\n"
	if got := r.Text(); got != want {
		t.Errorf("match=add:\n%s\nwant:\n%s", got, want)
	}
	// A glob on qualified names; an interface keeps only its matching method.
	r, _ = Of(ctx, root, cache, "store/store.go", Options{Match: "*.List"})
	if got := r.Text(); !strings.Contains(got, "47-51 interface Repository\n  49 List() []Item\n") || strings.Contains(got, "Name()") {
		t.Errorf("match=*.List:\n%s", got)
	}
	r, _ = Of(ctx, root, cache, "store/store.go", Options{Match: "nothing_like_it"})
	if got := r.Text(); !strings.Contains(got, `no symbol matches "nothing_like_it"; outline path=store/store.go without match lists them all`) {
		t.Errorf("no match:\n%s", got)
	}
	// In a directory: where is a name defined?
	r, _ = Of(ctx, root, cache, ".", Options{Match: "Report"})
	got := r.Text()
	if !strings.Contains(got, `with a symbol matching "Report"`) || !strings.Contains(got, "store/report.go (187 lines, go): 13 struct ReportOptions, 22 func Report\n") || strings.Contains(got, "pricing/pricing.go") || strings.Contains(got, "[cut at") {
		t.Errorf("directory match=Report:\n%s", got)
	}
	// A member is found where it is, by the name read_symbol takes.
	r, _ = Of(ctx, root, cache, ".", Options{Match: "add"})
	if got := r.Text(); !strings.Contains(got, "store/store.go (119 lines, go): 66 method Store.Add\n") {
		t.Errorf("directory match=add:\n%s", got)
	}
	// The hint of a filtered outline is unique in the whole file.
	r, _ = Of(ctx, root, cache, "store/store.go", Options{Match: "Name"})
	if got := r.Text(); !strings.Contains(got, "read one: read_symbol id=store/store.go:Repository.Name\n") {
		t.Errorf("match=Name hint:\n%s", got)
	}
	if _, err := Of(ctx, root, cache, ".", Options{Match: "[x"}); err == nil || !strings.Contains(err.Error(), "not a valid glob") {
		t.Errorf("bad glob: %v", err)
	}
}

// TestOutlineLeanFoldsAndDetailUnfolds: a var/const group is one line in
// the lean form, with its values left for the detail form.
func TestOutlineLeanFoldsAndDetailUnfolds(t *testing.T) {
	root, _ := workspace.Open(fixtureDir(t, "go"))
	cache := syntax.NewParseCache(0)
	lean, _ := Of(context.Background(), root, cache, "store/store.go", Options{})
	detail, _ := Of(context.Background(), root, cache, "store/store.go", Options{Detail: true})
	if !strings.Contains(lean.Text(), "\n17-21 const InStock, LowStock, SoldOut\n") {
		t.Errorf("lean form does not fold the const group:\n%s", lean.Text())
	}
	if !strings.Contains(detail.Text(), "\n  18 const InStock State = iota  // at least one on the shelf\n") {
		t.Errorf("detail form lacks the group member with value and doc:\n%s", detail.Text())
	}
	if len(lean.Text()) >= len(detail.Text()) {
		t.Errorf("lean (%d bytes) is not smaller than detail (%d)", len(lean.Text()), len(detail.Text()))
	}
}

// TestOutlineDirectoryIsCompleteUnlessBounded: the package does not cut
// on its own (the CLI's --json is complete); a caller that bounds it, as
// the hub does for a model, is told where the rest is.
func TestOutlineDirectoryIsCompleteUnlessBounded(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 250; i++ {
		p := filepath.Join(dir, "pkg", fmt.Sprintf("f%03d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package pkg\n\nfunc F%d() {}\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := workspace.Open(dir)
	cache := syntax.NewParseCache(0)
	r, err := Of(context.Background(), root, cache, ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Dir.Files) != 250 || strings.Contains(r.Text(), "[cut at") {
		t.Errorf("unbounded: %d files; text cut: %v", len(r.Dir.Files), strings.Contains(r.Text(), "[cut at"))
	}
	r, _ = Of(context.Background(), root, cache, ".", Options{MaxFiles: 200})
	if len(r.Dir.Files) != 200 || !strings.Contains(r.Text(), "[cut at 200 of 250 source files; outline a subdirectory or single files for the rest: pkg (50)]") {
		t.Errorf("bounded at 200: %d files:\n%.500s", len(r.Dir.Files), r.Text())
	}
}

// TestOutlineDirectorySaysWhatItCouldNotRead: a directory the walk cannot
// list is named in the map, not passed over in silence.
func TestOutlineDirectorySaysWhatItCouldNotRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.go"), []byte("package ok\n\nfunc OK() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, reason := wstest.UnreadableDir(t, dir)
	root, _ := workspace.Open(dir)
	r, err := Of(context.Background(), root, syntax.NewParseCache(0), ".", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Dir.Unreadable) != 1 || r.Dir.Unreadable[0].Path != bad {
		t.Fatalf("unreadable = %v, want %s", r.Dir.Unreadable, bad)
	}
	if want := "(" + reason + "); their files are not in this map]"; !strings.Contains(r.Text(), want) || !strings.Contains(r.Text(), "ok.go") {
		t.Errorf("map lacks %q or ok.go:\n%.600s", want, r.Text())
	}
}
