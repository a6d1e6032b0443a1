package store

import "testing"

func TestAddTwice(t *testing.T) {
	s := New("t")
	if err := s.Add(Item{SKU: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(Item{SKU: "a"}); err == nil {
		t.Fatal("second Add succeeded")
	}
}
