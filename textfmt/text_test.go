package textfmt_test

import (
	"strings"
	"testing"

	"cchub/textfmt"
)

func TestDecodeText(t *testing.T) {
	for _, c := range []struct {
		name, data, body   string
		bom, crlf, finalNL bool
	}{
		{"LF", "a\nb\n", "a\nb\n", false, false, true},
		{"CRLF", "a\r\nb\r\n", "a\nb\n", false, true, true},
		{"CRLF, no final newline", "a\r\nb", "a\nb", false, true, false},
		{"BOM and CRLF", "\uFEFFa\r\nb\r\n", "a\nb\n", true, true, true},
		{"BOM alone", "\uFEFFx", "x", true, false, false},
		// Mixed endings are left as they are: converting them would
		// change lines the caller never touched.
		{"mixed", "a\r\nb\nc\r\n", "a\r\nb\nc\r\n", false, false, true},
		{"a lone CR is text", "a\rb\n", "a\rb\n", false, false, true},
		{"no line ending at all", "abc", "abc", false, false, false},
		{"empty", "", "", false, false, false},
		// A BOM later in the file is text.
		{"inner BOM", "a\n\uFEFFb\n", "a\n\uFEFFb\n", false, false, true},
	} {
		got := textfmt.DecodeText([]byte(c.data))
		want := textfmt.Text{Body: c.body, BOM: c.bom, CRLF: c.crlf, FinalNewline: c.finalNL}
		if got != want {
			t.Errorf("%s: DecodeText(%q) = %+v, want %+v", c.name, c.data, got, want)
		}
		// The body written back is the file, byte for byte.
		if back := string(got.Encode(got.Body)); back != c.data {
			t.Errorf("%s: Encode(Body) = %q, want %q", c.name, back, c.data)
		}
	}
}

// An edited body is written in the file's own style.
func TestTextEncodeKeepsStyle(t *testing.T) {
	crlf := textfmt.DecodeText([]byte("\uFEFFone\r\ntwo\r\n"))
	if got := string(crlf.Encode("one\nTWO\nthree\n")); got != "\uFEFFone\r\nTWO\r\nthree\r\n" {
		t.Errorf("CRLF with BOM: %q", got)
	}
	lf := textfmt.DecodeText([]byte("one\n"))
	if got := string(lf.Encode("x\ny")); got != "x\ny" {
		t.Errorf("Encode adds nothing: %q", got)
	}
	if got := lf.KeepFinalNewline("x\ny"); got != "x\ny\n" {
		t.Errorf("KeepFinalNewline: %q", got)
	}
	if got := lf.KeepFinalNewline(""); got != "" {
		t.Errorf("KeepFinalNewline of an empty body: %q", got)
	}
	if got := textfmt.DecodeText([]byte("x")).KeepFinalNewline("y"); got != "y" {
		t.Errorf("a file without a final newline gets none: %q", got)
	}
}

func TestLineEndingHelpers(t *testing.T) {
	if got := textfmt.ToLF("a\r\nb\rc\n"); got != "a\nb\rc\n" {
		t.Errorf("ToLF: %q", got)
	}
	if b, ok := textfmt.CutBOM([]byte("\uFEFFx")); !ok || string(b) != "x" {
		t.Errorf("CutBOM: %q %v", b, ok)
	}
	if b, ok := textfmt.CutBOM([]byte("x\uFEFF")); ok || string(b) != "x\uFEFF" {
		t.Errorf("CutBOM of a late BOM: %q %v", b, ok)
	}
	for in, want := range map[string]string{"a\r": "a", "a\r\r": "a\r", "a": "a", "": "", "\r": ""} {
		if got := string(textfmt.TrimCR([]byte(in))); got != want {
			t.Errorf("TrimCR(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.HasPrefix(textfmt.BOM, "\xEF\xBB\xBF") || len(textfmt.BOM) != 3 {
		t.Errorf("BOM = %q", textfmt.BOM)
	}
}
