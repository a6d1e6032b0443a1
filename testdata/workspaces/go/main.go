// Command shop runs a tiny in-memory shop and prints a stock report.
package main

import (
	"flag"
	"fmt"
	"os"

	"example.com/shop/pricing"
	"example.com/shop/store"
)

// verbose turns on per-item output.
var verbose = flag.Bool("v", false, "print every item")

func main() {
	flag.Parse()
	s := store.New("main street")
	s.Add(store.Item{SKU: "apple", Name: "Apple", Price: pricing.Cents(45), Qty: 120})
	s.Add(store.Item{SKU: "pear", Name: "Pear", Price: pricing.Cents(60), Qty: 3})
	s.Add(store.Item{SKU: "plum", Name: "Plum", Price: pricing.Cents(30), Qty: 0})
	if err := s.Remove("kiwi"); err != nil && *verbose {
		fmt.Fprintln(os.Stderr, "remove:", err)
	}
	fmt.Print(store.Report(s, store.ReportOptions{Verbose: *verbose, LowStock: 5}))
}
