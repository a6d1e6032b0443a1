package proc

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestTailKeepsTheEnd(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		max    int
		want   string
		bytes  string
	}{
		{nil, 4, "", ""},
		{[]string{"ab", "cd"}, 4, "abcd", "abcd"},
		{[]string{"ab", "cd", "e"}, 4, "…bcde", "bcde"},
		{[]string{"abcdefgh"}, 4, "…efgh", "efgh"},
		{[]string{"xy", "abcdefgh"}, 4, "…efgh", "efgh"},
	} {
		tl := NewTail(tc.max)
		for _, w := range tc.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if got := tl.String(); got != tc.want {
			t.Errorf("%q: String() = %q, want %q", tc.writes, got, tc.want)
		}
		if got := string(tl.Bytes()); got != tc.bytes {
			t.Errorf("%q: Bytes() = %q, want %q", tc.writes, got, tc.bytes)
		}
	}
}

func TestTailConcurrentWrites(t *testing.T) {
	tl := NewTail(64)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				fmt.Fprintf(tl, "%d:%d\n", i, j)
			}
		})
	}
	wg.Wait()
	b := tl.Bytes()
	if len(b) != 64 {
		t.Fatalf("kept %d bytes, want 64", len(b))
	}
	// Writes are whole: every line after the first (cut) one is one write.
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, l := range lines[1:] {
		var i, j int
		if _, err := fmt.Sscanf(l, "%d:%d", &i, &j); err != nil {
			t.Errorf("line %q is not one write: %v", l, err)
		}
	}
}
