package store

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"example.com/shop/pricing"
)

// ReportOptions tunes Report.
type ReportOptions struct {
	Verbose  bool          // list every item, not only the problems
	LowStock int           // quantity at or below which an item is low
	Deadline time.Duration // give up on slow stores after this long; 0 = no limit
	Columns  []string      // extra columns: "value", "state", "share"
}

// Report renders a plain-text stock report for r. It is deliberately one
// long function: every section shares the same running totals.
func Report(r Repository, opts ReportOptions) string {
	var b strings.Builder
	if opts.LowStock <= 0 {
		opts.LowStock = 5
	}

	// Fetch the items, giving up if the repository is slow.
	items := make(chan []Item, 1)
	go func() { items <- r.List() }()
	var list []Item
	var timeout <-chan time.Time
	if opts.Deadline > 0 {
		timeout = time.After(opts.Deadline)
	}
	select {
	case list = <-items:
	case <-timeout:
		fmt.Fprintf(&b, "%s: no answer within %s\n", r.Name(), opts.Deadline)
		return b.String()
	}

	fmt.Fprintf(&b, "Stock report for %s\n", r.Name())
	fmt.Fprintf(&b, "%s\n", strings.Repeat("=", 20+len(r.Name())))

	// Running totals shared by every section below.
	var (
		total     pricing.Money
		units     int
		low, gone []Item
		byState   = map[State]int{}
		widest    int
		priciest  Item
		cheapest  Item
		haveCheap bool
	)

	for _, it := range list {
		value := it.Price * pricing.Money(it.Qty)
		total += value
		units += it.Qty
		st := StateOf(it, opts.LowStock)
		byState[st]++
		switch st {
		case LowStock:
			low = append(low, it)
		case SoldOut:
			gone = append(gone, it)
		default:
			// nothing to flag
		}
		if len(it.Name) > widest {
			widest = len(it.Name)
		}
		if it.Price > priciest.Price {
			priciest = it
		}
		if !haveCheap || it.Price < cheapest.Price {
			cheapest = it
			haveCheap = true
		}
	}

	if len(list) == 0 {
		b.WriteString("The store is empty.\n")
		return b.String()
	}

	// Section: every item, if asked.
	if opts.Verbose {
		b.WriteString("\nItems\n-----\n")
		for _, it := range list {
			fmt.Fprintf(&b, "%-*s %6d x %s", widest, it.Name, it.Qty, it.Price)
			for _, col := range opts.Columns {
				switch col {
				case "value":
					fmt.Fprintf(&b, "  value=%s", it.Price*pricing.Money(it.Qty))
				case "state":
					fmt.Fprintf(&b, "  state=%d", StateOf(it, opts.LowStock))
				case "share":
					if total > 0 {
						share := float64(it.Price*pricing.Money(it.Qty)) / float64(total) * 100
						fmt.Fprintf(&b, "  share=%.1f%%", share)
					} else {
						b.WriteString("  share=-")
					}
				default:
					fmt.Fprintf(&b, "  %s=?", col)
				}
			}
			b.WriteString("\n")
		}
	}

	// Section: problems.
	if len(low) > 0 || len(gone) > 0 {
		b.WriteString("\nNeeds attention\n---------------\n")
		sort.Slice(low, func(i, j int) bool { return low[i].Qty < low[j].Qty })
		for _, it := range low {
			fmt.Fprintf(&b, "low:      %-*s only %d left\n", widest, it.Name, it.Qty)
		}
		for _, it := range gone {
			fmt.Fprintf(&b, "sold out: %-*s\n", widest, it.Name)
		}
	} else {
		b.WriteString("\nEverything is well stocked.\n")
	}

	// Section: extremes.
	b.WriteString("\nExtremes\n--------\n")
	fmt.Fprintf(&b, "priciest: %s at %s\n", priciest.Name, priciest.Price)
	if haveCheap {
		fmt.Fprintf(&b, "cheapest: %s at %s\n", cheapest.Name, cheapest.Price)
	}

	// Section: states, in a fixed order.
	b.WriteString("\nBy state\n--------\n")
	for _, st := range []State{InStock, LowStock, SoldOut} {
		var label string
		switch st {
		case InStock:
			label = "in stock"
		case LowStock:
			label = "low"
		case SoldOut:
			label = "sold out"
		}
		n := byState[st]
		bar := strings.Repeat("#", n)
		if n == 0 {
			bar = "-"
		}
		fmt.Fprintf(&b, "%-9s %3d %s\n", label, n, bar)
	}

	// Section: totals.
	b.WriteString("\nTotals\n------\n")
	fmt.Fprintf(&b, "lines: %d\n", len(list))
	fmt.Fprintf(&b, "units: %d\n", units)
	fmt.Fprintf(&b, "value: %s\n", total)
	avg := pricing.Money(0)
	if units > 0 {
		avg = total / pricing.Money(units)
	}
	fmt.Fprintf(&b, "mean unit price: %s\n", avg)

	// Section: a short verdict a human can act on.
	b.WriteString("\nVerdict\n-------\n")
	switch {
	case len(gone) > len(list)/2:
		b.WriteString("More than half the lines are sold out: reorder now.\n")
	case len(gone) > 0 && len(low) > 0:
		fmt.Fprintf(&b, "%d sold out and %d low: reorder this week.\n", len(gone), len(low))
	case len(gone) > 0:
		fmt.Fprintf(&b, "%d sold out: reorder this week.\n", len(gone))
	case len(low) > 0:
		fmt.Fprintf(&b, "%d running low: keep an eye on them.\n", len(low))
	default:
		b.WriteString("Nothing to do.\n")
	}

	// Footer with the time, so two reports can be told apart.
	for i := 0; i < 1; i++ {
		fmt.Fprintf(&b, "\n(generated %s)\n", time.Now().UTC().Format(time.RFC3339))
	}
	return b.String()
}
