package store

import (
	"encoding/json"
	"fmt"
	"os"
)

// Save writes the store's items to path as JSON.
func (s *Store) Save(path string) error {
	data, err := json.Marshal(s.List())
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	return nil
}

// Load reads the items that Save wrote into a new store called name.
func Load(name, path string) (*Store, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var items []Item
	if err = json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	s := New(name)
	for _, it := range items {
		if err := s.Add(it); err != nil {
			return nil, err
		}
	}
	return s, nil
}
