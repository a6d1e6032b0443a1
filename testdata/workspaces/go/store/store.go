// Package store keeps the shop's stock in memory.
package store

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"example.com/shop/pricing"
)

// State says whether an item can be sold.
type State int

// The states an item moves through.
const (
	InStock State = iota // at least one on the shelf
	LowStock
	SoldOut
)

// Errors returned by Store methods.
var (
	ErrNotFound = errors.New("store: no such item")
	ErrExists   = errors.New("store: item already exists")
)

var registry = map[string]*Store{}

// Item is one product line.
type Item struct {
	SKU   string
	Name  string
	Price pricing.Money
	Qty   int
}

// Store is a named shop with its stock. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	name  string
	items map[string]Item
}

// Repository is what a report needs from a store.
type Repository interface {
	// List returns every item, sorted by SKU.
	List() []Item
	Name() string
}

func init() {
	registry["default"] = New("default")
}

// New returns an empty store called name.
func New(name string) *Store {
	return &Store{name: name, items: map[string]Item{}}
}

// Name returns the store's name.
func (s *Store) Name() string { return s.name }

// Add puts it on the shelf; adding a SKU twice is an error.
func (s *Store) Add(it Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[it.SKU]; ok {
		return fmt.Errorf("%w: %s", ErrExists, it.SKU)
	}
	s.items[it.SKU] = it
	return nil
}

// Remove takes the SKU off the shelf.
func (s *Store) Remove(sku string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[sku]; !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, sku)
	}
	delete(s.items, sku)
	return nil
}

// List returns every item, sorted by SKU.
func (s *Store) List() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Item, 0, len(s.items))
	for _, it := range s.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SKU < out[j].SKU })
	return out
}

// StateOf tells how well stocked it is, given the low-stock threshold.
func StateOf(it Item, low int) State {
	switch {
	case it.Qty == 0:
		return SoldOut
	case it.Qty <= low:
		return LowStock
	}
	return InStock
}

// Filter keeps the elements of xs for which keep is true.
func Filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}
