package main

import (
	"bytes"
	"testing"
)

// A character split between two writes is shown whole; a control split
// from the rest of its sequence is escaped all the same; what is left
// unfinished at the end is escaped as the bytes it is.
func TestVisibleWriterAcrossWrites(t *testing.T) {
	text := "é日\u202e\x1b[2K\n"
	for cut := 0; cut <= len(text); cut++ {
		var out bytes.Buffer
		v := newTextWriter(&out)
		v.Write([]byte(text[:cut]))
		v.Write([]byte(text[cut:]))
		v.Flush()
		if got, want := out.String(), "é日\\u202e\\x1b[2K\n"; got != want {
			t.Errorf("cut at %d: %q, want %q", cut, got, want)
		}
	}
	var out bytes.Buffer
	v := newTextWriter(&out)
	v.Write([]byte("ok\xe6\x97"))
	if out.String() != "ok" {
		t.Errorf("before Flush: %q", out.String())
	}
	v.Flush()
	if got := out.String(); got != `ok\xe6\x97` {
		t.Errorf("after Flush: %q", got)
	}
}
