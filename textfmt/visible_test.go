package textfmt

import (
	"encoding/json"
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
		if !needsEscape(s, false) && v != s {
			t.Fatalf("Visible changed %q, which needs no escape", s)
		}
		if strings.Count(v, "\n") != 0 {
			t.Fatalf("Visible(%q) spans lines", s)
		}
	})
}

// A whole output keeps its lines; JSON gets JSON escapes, which parse
// back to exactly the string that was encoded.
func TestVisibleLinesAndJSON(t *testing.T) {
	in := "a\x1b[1A\x1b[2Kb\r\n\tc\u009b\u202ed\x7f\xff\n"
	if got, want := VisibleLines(in), "a\\x1b[1A\\x1b[2Kb\\r\n\tc\\u009b\\u202ed\\x7f\\xff\n"; got != want {
		t.Errorf("VisibleLines = %q, want %q", got, want)
	}
	value := "x\u009b2J\u202eabc\x7fz é"
	enc, err := json.Marshal(map[string]string{"k": value})
	if err != nil {
		t.Fatal(err)
	}
	shown := VisibleJSON(string(enc) + "\n")
	if needsEscape(shown, true) {
		t.Fatalf("VisibleJSON left a control: %q", shown)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(shown), &back); err != nil || back["k"] != value {
		t.Fatalf("VisibleJSON(%s) = %s reads back as %q, %v", enc, shown, back["k"], err)
	}
	if got := VisibleJSON("\xff"); got != `\ufffd` {
		t.Errorf("VisibleJSON(invalid byte) = %q", got)
	}
}

func TestShowPathQuotesWhatReordersOrControls(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.go":        "a/b.go",
		"a\u202eog.b":   `"a\u202eog.b"`,
		"c1\u009b.go":   `"c1\u009b.go"`,
		"esc\x1b[2K.go": `"esc\x1b[2K.go"`,
		"bad\xff.go":    `"bad\xff.go"`,
		"日本/é.go":       "日本/é.go",
		`"quoted".go`:   `"\"quoted\".go"`,
		"tab\tname.go":  `"tab\tname.go"`,
	} {
		got := ShowPath(in)
		if got != want {
			t.Errorf("ShowPath(%q) = %s, want %s", in, got, want)
		}
		if UnquotePath(got) != in {
			t.Errorf("UnquotePath(%s) = %q, want %q", got, UnquotePath(got), in)
		}
	}
}
