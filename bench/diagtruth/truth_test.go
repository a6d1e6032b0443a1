package main

import (
	"testing"
)

// An answer as hub/afterwrite.go and ledger/text.go write it is read
// into copies per (file, message), its cut and its notes.
func TestParseAnswer(t *testing.T) {
	text := "Edited command.go:27-29\n" +
		"27\t\"sort\"\n" +
		"[diagnostics not ready after 5s]\n" +
		"diagnostics: 28 new errors, 1 warning, 1 info in command.go; 22 new errors in jwt/algorithms.py; and 4 new diagnostics in 2 more files not listed (x.go, y.go: diagnostics paths=x.go lists them)\n" +
		"command.go\n" +
		"  690:8 error [compiler UndeclaredName] undefined: strings (also 690:39, 694:8, 694:38 and 24 more places)\n" +
		"  12:1 warning [printf default] fmt.Sprintf format %d has arg x of wrong type string\n" +
		"  33:6 info [unusedfunc default] function \"debugName\" is unused\n" +
		"jwt/algorithms.py\n" +
		"  81:46 error [reportAttributeAccessIssue] Cannot access attribute \"SHA256\"\n" +
		"      \u00a0\u00a0Could not bind method\n" +
		"  (and 21 more: 21 errors; diagnostics paths=jwt/algorithms.py lists every one)\n" +
		"gone: error [UndeclaredName] undefined: x (command.go)\n"
	a := parseAnswer(text)
	want := counts{
		{"command.go", "undefined: strings"}:                                   28,
		{"command.go", "fmt.Sprintf format %d has arg x of wrong type string"}: 1,
		{"jwt/algorithms.py", `Cannot access attribute "SHA256"`}:              1,
	}
	if len(a.New) != len(want) {
		t.Errorf("new = %v, want %v", a.New, want)
	}
	for k, n := range want {
		if a.New[k] != n {
			t.Errorf("new[%v] = %d, want %d", k, a.New[k], n)
		}
	}
	if a.Cut != 25 || a.Hints != 1 || len(a.Notes) != 1 || a.Notes[0] != "diagnostics not ready after 5s" {
		t.Errorf("cut %d hints %d notes %q, want 25, 1, the not-ready note", a.Cut, a.Hints, a.Notes)
	}
}

// judge counts a second copy of an old message as new, an old one
// reported as old-as-new, and a missed one that the next answer carries
// as a late arrival of the edit that caused it (not as old-as-new of the
// next).
func TestJudge(t *testing.T) {
	k1, k2, k3 := key{"a.py", "old"}, key{"b.py", "new"}, key{"c.py", "later"}
	before := counts{k1: 1}
	after := counts{k1: 2, k2: 1, k3: 1}
	first := &result{}
	judge(first, answer{New: counts{k1: 2, k2: 1}}, before, before, after, nil)
	if first.TrulyNew != 3 || first.Correct != 2 || first.OldAsNew != 1 || first.Missed != 1 {
		t.Fatalf("first: %+v", first)
	}
	next := &result{}
	judge(next, answer{New: counts{k3: 1}}, before, after, after, first)
	if first.Late != 1 || next.OldAsNew != 0 || next.Other != 0 || next.TrulyNew != 0 {
		t.Errorf("late %d, next %+v: want the missed one credited late to the first edit", first.Late, next)
	}
	// An undo that brings an old error back: back, not truly new.
	undo := &result{}
	judge(undo, answer{New: counts{}}, counts{k1: 1}, counts{}, counts{k1: 1}, nil)
	if undo.TrulyNew != 0 || undo.Back != 1 || undo.Missed != 0 {
		t.Errorf("undo: %+v, want one back and nothing missed", undo)
	}
}

// A message the answer clipped at its length bound is matched to the
// checker's message it begins.
func TestUnclip(t *testing.T) {
	full := key{"x.ts", "Type 'A' is not assignable to type 'B' with a long tail"}
	got := unclip(key{"x.ts", "Type 'A' is not assignable…"}, counts{full: 1})
	if got != full {
		t.Errorf("unclip = %v, want %v", got, full)
	}
}

func TestNormMsg(t *testing.T) {
	if got := normMsg("not enough arguments in call to f\n\thave (int)\n\twant ()"); got != "not enough arguments in call to f" {
		t.Errorf("first line: %q", got)
	}
	if got := normMsg("a\u00a0\u00a0 b  c "); got != "a b c" {
		t.Errorf("spaces: %q", got)
	}
}
