package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"gopls":               "gopls",
		"tab\there":           "tab\there",
		"é ü 日本":              "é ü 日本",
		"gopls\x1b[2K\rok":    `gopls\x1b[2K\rok`,
		"sh\x1b]0;title\x07":  `sh\x1b]0;title\x07`,
		"two\nlines":          `two\nlines`,
		"del\x7f":             `del\x7f`,
		"c1\u009b31m":         `c1\u009b31m`,
		"touch\u202e/tmp/x":   `touch\u202e/tmp/x`,
		"iso\u2066late\u2069": `iso\u2066late\u2069`,
		"bad\xff\xfeutf8":     `bad\xff\xfeutf8`,
		"a\\x1b and \x1b":     `a\x1b and \x1b`,
		"plain \\ backslash":  "plain \\ backslash",
		"end\\":               "end\\",
		"":                    "",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever it is given, Visible's result is valid UTF-8 with no control
// character but tab and no bidirectional control, and text that needs no
// escape comes back as it was.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"gopls", "a\x1b[2Kb", "\r\n", "\xff", "\u202e", "x\\x1b", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) {
			t.Fatalf("Visible(%q) = %q is not UTF-8", s, v)
		}
		for _, r := range v {
			if r < 0x20 && r != '\t' || r >= 0x7f && r < 0xa0 || bidiControl(r) {
				t.Fatalf("Visible(%q) = %q holds %U", s, v, r)
			}
		}
		if !needsEscape(s) && v != s {
			t.Fatalf("Visible changed %q, which needs no escape", s)
		}
		if strings.Count(v, "\n") != 0 {
			t.Fatalf("Visible(%q) spans lines", s)
		}
	})
}
