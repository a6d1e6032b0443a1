package confirm

import "testing"

func TestCharPlace(t *testing.T) {
	text := []byte("package p\n\nvar s = \"é\"; var _ = f()\n")
	// f is at byte column 23 of line 3, character column 22 ("é" is two bytes).
	if l, c, ok := charPlace(text, 3, 23, "f"); !ok || l != 3 || c != 22 {
		t.Errorf("charPlace = %d, %d, %v; want 3, 22, true", l, c, ok)
	}
	if _, _, ok := charPlace(text, 3, 22, "f"); ok {
		t.Error("charPlace found f where there is none: a stale call site must be refused")
	}
}
