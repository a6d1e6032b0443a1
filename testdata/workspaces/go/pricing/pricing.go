// Package pricing holds money amounts and the rules that change them.
package pricing

import "fmt"

// Money is an amount in cents. Cents avoid rounding surprises.
type Money int64

// Currency is the ISO code every Money in this shop is in.
const Currency = "EUR"

type (
	// Discount takes a share off a price.
	Discount struct {
		Name    string
		Percent int
	}

	// Rule changes a price; rules are applied in order.
	Rule func(Money) Money
)

// Cents returns n cents as Money.
func Cents(n int64) Money { return Money(n) }

// String formats m as "12.34 EUR".
func (m Money) String() string {
	return fmt.Sprintf("%d.%02d %s", int64(m)/100, int64(m)%100, Currency)
}

// Apply runs every rule over price, in order, and never returns a
// negative amount.
func Apply(
	price Money,
	rules ...Rule,
) Money {
	for _, r := range rules {
		price = r(price)
	}
	if price < 0 {
		return 0
	}
	return price
}

// Off returns a rule that applies d.
func (d Discount) Off() Rule {
	return func(m Money) Money { return m - m*Money(d.Percent)/100 }
}

// Max returns the larger of two comparable amounts.
func Max[T ~int64](a, b T) T {
	if a > b {
		return a
	}
	return b
}
