package textfmt

import (
	"bytes"
	"strings"
)

// Line endings and the byte-order mark are handled here once: every tool
// shows, compares and changes a file's text with LF line endings and
// without a BOM, and a file that is written back keeps its own style.

// BOM is the UTF-8 byte-order mark some editors put at the start of a file.
// It is not text: tools neither show it nor match against it.
const BOM = "\uFEFF"

// Text is a file's content as tools compare and change it, and the style
// to write it back in.
type Text struct {
	// Body is the content without a BOM and, when CRLF is set, with every
	// CRLF turned into LF.
	Body string
	// BOM says the file starts with a UTF-8 byte-order mark.
	BOM bool
	// CRLF says every line of the file ends in CRLF. A file that mixes
	// endings is left as it is: Body keeps its CRs, and Encode adds none.
	CRLF bool
	// FinalNewline says the file ends with a line ending.
	FinalNewline bool
}

// DecodeText splits a file's bytes into its body and its style.
func DecodeText(data []byte) Text {
	var t Text
	data, t.BOM = CutBOM(data)
	s := string(data)
	if n := strings.Count(s, "\n"); n > 0 && strings.Count(s, "\r\n") == n {
		t.CRLF = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	t.Body = s
	t.FinalNewline = strings.HasSuffix(s, "\n")
	return t
}

// Encode is body (LF line endings) written in the file's own style: CRLF
// line endings if the file had them, and its BOM. It does not add or drop a
// final newline; KeepFinalNewline does that for callers that want it.
func (t Text) Encode(body string) []byte {
	if t.CRLF {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	if t.BOM {
		return append([]byte(BOM), body...)
	}
	return []byte(body)
}

// KeepFinalNewline gives body the final newline the file had, so that an
// edit of its last line does not drop it. An empty body stays empty.
func (t Text) KeepFinalNewline(body string) string {
	if t.FinalNewline && body != "" && !strings.HasSuffix(body, "\n") {
		return body + "\n"
	}
	return body
}

// ToLF turns CRLF line endings into LF, for text a model gives (an
// old_string, a patch) that is compared with a Body.
func ToLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// CutBOM returns data without a leading BOM, and whether it had one.
func CutBOM(data []byte) ([]byte, bool) {
	return bytes.CutPrefix(data, []byte(BOM))
}

// TrimCR drops the '\r' of a CRLF line ending from a line's text (the line
// as split at '\n'). Tools that show lines one at a time use it, so that a
// CRLF file shows as any other.
func TrimCR(line []byte) []byte {
	return bytes.TrimSuffix(line, []byte{'\r'})
}
