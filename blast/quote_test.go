package blast

import (
	"os/exec"
	"strings"
	"testing"

	"cchub/textfmt"
)

// A test command quotes what a repository named (a directory, a test id)
// so that the shell gets its exact bytes and a terminal that shows the
// command is not driven by them: the real sh runs each quoted word back.
func TestQuoteIsExactForTheShellAndVisibleOnScreen(t *testing.T) {
	for _, s := range []string{
		"plain/dir",
		"it's",
		"up\x1b[1A\x1b[2Kerase",
		"cr\rover",
		"osc\x1b]8;;http://x/\x07link",
		"bidi\u202eright",
		"c1\u009b2J",
		"bad\xff\xfe",
		"two\nlines",
		"tab\there",
	} {
		q := quoteAlways(s)
		if textfmt.VisibleLines(q) != q {
			t.Errorf("quoteAlways(%q) = %q: a terminal would obey part of it", s, q)
		}
		if got, err := exec.Command("sh", "-c", "printf %s "+q).Output(); err != nil || string(got) != s {
			t.Errorf("sh reads quoteAlways(%q) = %s as %q, %v", s, q, got, err)
		}
		if sq := shellQuote(s); !strings.HasPrefix(sq, "'") && sq != s {
			t.Errorf("shellQuote(%q) = %q", s, sq)
		}
	}
}
