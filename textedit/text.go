package textedit

import (
	"bytes"
	"strings"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// fileText is a file's content as the matcher sees it: without a BOM and
// with CRLF turned into LF when the file uses CRLF throughout. restore puts
// both back.
type fileText struct {
	body string
	bom  bool
	crlf bool
}

func decode(data []byte) fileText {
	var ft fileText
	if bytes.HasPrefix(data, utf8BOM) {
		ft.bom = true
		data = data[len(utf8BOM):]
	}
	s := string(data)
	if n := strings.Count(s, "\n"); n > 0 && strings.Count(s, "\r\n") == n {
		ft.crlf = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	ft.body = s
	return ft
}

func (ft fileText) restore(body string) []byte {
	if ft.crlf {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	if ft.bom {
		return append(append([]byte(nil), utf8BOM...), body...)
	}
	return []byte(body)
}

// normalizeEOL makes a model's text use LF, as the matcher's view does.
func normalizeEOL(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// line is one line of a body: its byte range without the newline.
type line struct {
	start, end int
	text       string
}

func splitLines(body string) []line {
	ls := make([]line, 0, strings.Count(body, "\n")+1)
	start := 0
	for start <= len(body) {
		nl := strings.IndexByte(body[start:], '\n')
		if nl < 0 {
			if start < len(body) {
				ls = append(ls, line{start, len(body), body[start:]})
			}
			break
		}
		ls = append(ls, line{start, start + nl, body[start : start+nl]})
		start += nl + 1
	}
	return ls
}

// lineAt is the 1-based line number of byte offset off.
func lineAt(body string, off int) int {
	return 1 + strings.Count(body[:off], "\n")
}

func leadingWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// indentWidth measures leading whitespace with tabs as 4 columns; it is
// only compared with widths of the same text's other lines.
func indentWidth(s string) int {
	w := 0
	for _, c := range s {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }
