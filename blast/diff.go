package blast

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Status says what a diff did to a file.
type Status string

const (
	Modified Status = "modified"
	Added    Status = "added"
	Deleted  Status = "deleted"
	Renamed  Status = "renamed"
	Copied   Status = "copied"
)

// FileDiff is one file of a git diff: its path on each side ("" where the
// side has no file), what happened to it, and the line ranges that changed.
type FileDiff struct {
	OldPath, NewPath string
	Status           Status
	// OldBlob and NewBlob are the blob ids of the "index" line, when it
	// has full ones (git diff --full-index): "" otherwise.
	OldBlob, NewBlob string
	Binary           bool
	Hunks            []Hunk
}

// Hunk is one "@@ -a,b +c,d @@" header: lines OldStart..OldStart+OldLines-1
// of the old side became NewStart..NewStart+NewLines-1 of the new side.
// A side with no lines (a pure insertion or deletion) has the line before
// the change as its start, 0 at the top of the file, as git writes it.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
}

// maxLine bounds the numbers a hunk header may hold: no file git diffs has
// more lines, and sums of two of them stay far from overflowing.
const maxLine = 1 << 30

// ParseDiff reads the output of git diff (two trees, or a tree and the
// working tree; any number of context lines) into its files. It reads
// untrusted bytes: it never panics, and a malformed header is an error
// naming its line. Lines it does not know (mode changes, similarity) are
// skipped, as git apply skips them.
func ParseDiff(data []byte) ([]FileDiff, error) {
	var out []FileDiff
	var cur *FileDiff
	// Lines still owed by the current hunk's body: while either is above
	// zero, a line is content, whatever it looks like.
	oldLeft, newLeft := 0, 0
	lineNo := 0
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		lineNo++
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case len(line) > 0 && line[0] == '-' && oldLeft > 0:
				oldLeft--
			case len(line) > 0 && line[0] == '+' && newLeft > 0:
				newLeft--
			case (len(line) == 0 || line[0] == ' ') && oldLeft > 0 && newLeft > 0:
				oldLeft--
				newLeft--
			case len(line) > 0 && line[0] == '\\': // "\ No newline at end of file"
			default:
				return nil, fmt.Errorf("diff line %d: the hunk above it is %d old and %d new line(s) short", lineNo, oldLeft, newLeft)
			}
			continue
		}
		s := string(line)
		switch {
		case strings.HasPrefix(s, "diff --git "):
			out = append(out, FileDiff{Status: Modified})
			cur = &out[len(out)-1]
			// A header whose paths cannot be told apart leaves them to
			// the lines that follow; a file that never names them is an
			// error below.
			cur.OldPath, cur.NewPath, _ = gitHeaderPaths(s[len("diff --git "):])
		case cur == nil:
			// Text before the first file (a commit message, say).
		case strings.HasPrefix(s, "@@ "):
			h, err := parseHunkHeader(s)
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %v", lineNo, err)
			}
			cur.Hunks = append(cur.Hunks, h)
			oldLeft, newLeft = h.OldLines, h.NewLines
		case strings.HasPrefix(s, "--- "):
			p, err := sidePath(s[4:], "a/")
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %v", lineNo, err)
			}
			cur.OldPath = p
			if p == "" {
				cur.Status = Added
			}
		case strings.HasPrefix(s, "+++ "):
			p, err := sidePath(s[4:], "b/")
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %v", lineNo, err)
			}
			cur.NewPath = p
			if p == "" {
				cur.Status = Deleted
			}
		case strings.HasPrefix(s, "new file mode "):
			cur.Status, cur.OldPath = Added, ""
		case strings.HasPrefix(s, "deleted file mode "):
			cur.Status, cur.NewPath = Deleted, ""
		case strings.HasPrefix(s, "rename from "), strings.HasPrefix(s, "copy from "):
			p, err := unquote(s[strings.Index(s, " from ")+6:])
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %v", lineNo, err)
			}
			cur.OldPath = p
			cur.Status = Renamed
			if s[0] == 'c' {
				cur.Status = Copied
			}
		case strings.HasPrefix(s, "rename to "), strings.HasPrefix(s, "copy to "):
			p, err := unquote(s[strings.Index(s, " to ")+4:])
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %v", lineNo, err)
			}
			cur.NewPath = p
		case strings.HasPrefix(s, "index "):
			cur.OldBlob, cur.NewBlob = blobIDs(s[len("index "):])
		case strings.HasPrefix(s, "Binary files ") || s == "GIT binary patch":
			cur.Binary = true
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return nil, fmt.Errorf("diff ends inside a hunk: %d old and %d new line(s) missing", oldLeft, newLeft)
	}
	for i := range out {
		f := &out[i]
		var ok bool
		switch f.Status {
		case Added:
			ok = f.OldPath == "" && f.NewPath != ""
		case Deleted:
			ok = f.OldPath != "" && f.NewPath == ""
		default:
			ok = f.OldPath != "" && f.NewPath != ""
		}
		if !ok {
			return nil, fmt.Errorf("diff of %q: %s, but its paths are %q and %q", clip(f.OldPath+f.NewPath), f.Status, clip(f.OldPath), clip(f.NewPath))
		}
	}
	return out, nil
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@ …".
func parseHunkHeader(s string) (Hunk, error) {
	var h Hunk
	rest, ok := strings.CutPrefix(s, "@@ -")
	if !ok {
		return h, fmt.Errorf("hunk header %q has no old range", clip(s))
	}
	oldR, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return h, fmt.Errorf("hunk header %q has no new range", clip(s))
	}
	newR, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return h, fmt.Errorf("hunk header %q does not close with @@", clip(s))
	}
	var err error
	if h.OldStart, h.OldLines, err = hunkRange(oldR); err != nil {
		return h, fmt.Errorf("hunk header %q: %v", clip(s), err)
	}
	if h.NewStart, h.NewLines, err = hunkRange(newR); err != nil {
		return h, fmt.Errorf("hunk header %q: %v", clip(s), err)
	}
	return h, nil
}

// hunkRange reads "start[,count]"; a missing count is 1.
func hunkRange(r string) (start, count int, err error) {
	a, b, hasCount := strings.Cut(r, ",")
	if start, err = lineNumber(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = lineNumber(b); err != nil {
			return 0, 0, err
		}
	}
	if count > 0 && start == 0 {
		return 0, 0, fmt.Errorf("range %q starts at line 0", r)
	}
	return start, count, nil
}

func lineNumber(s string) (int, error) {
	if s == "" || len(s) > 10 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxLine {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	return n, nil
}

// gitHeaderPaths reads the two paths of "diff --git a/X b/Y". Quoted
// paths are unambiguous; unquoted ones may hold spaces, so the header is
// read as git reads it: two equal halves when the names are the same.
// A rename's real names come later, from its "rename from/to" lines.
func gitHeaderPaths(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		a, rest, err := quotedPrefix(s)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		b, err := sidePath(rest[1:], "b/")
		if err != nil {
			return "", "", false
		}
		return strings.TrimPrefix(a, "a/"), b, true
	}
	if i := strings.Index(s, ` "`); i >= 0 && strings.HasSuffix(s, `"`) {
		b, err := unquote(s[i+1:])
		if err == nil {
			return strings.TrimPrefix(s[:i], "a/"), strings.TrimPrefix(b, "b/"), true
		}
	}
	// Same name on both sides: "a/X b/X".
	if n := len(s); n >= 5 && (n-1)%2 == 0 {
		half := (n - 1) / 2
		a, b := s[:half], s[half+1:]
		if s[half] == ' ' && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:], true
		}
	}
	// Different names without quotes: a rename, whose lines follow.
	if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		return s[2:i], s[i+3:], true
	}
	return "", "", false
}

// sidePath reads the path of a "--- " or "+++ " line (prefix a/ or b/
// dropped; "" for /dev/null). A trailing tab and what follows it (a
// timestamp, from other diff programs) is not part of an unquoted name.
func sidePath(s, prefix string) (string, error) {
	if s == "/dev/null" {
		return "", nil
	}
	if strings.HasPrefix(s, `"`) {
		p, _, err := quotedPrefix(s)
		if err != nil {
			return "", err
		}
		return strings.TrimPrefix(p, prefix), nil
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "", fmt.Errorf("empty path")
	}
	return strings.TrimPrefix(s, prefix), nil
}

// unquote reads a path that git may have quoted (C style, as core.quotePath
// does) and that takes the rest of the line.
func unquote(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		if s == "" {
			return "", fmt.Errorf("empty path")
		}
		return s, nil
	}
	p, rest, err := quotedPrefix(s)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("text after the quoted path %q", clip(s))
	}
	return p, nil
}

// quotedPrefix reads the C-quoted string at the start of s, as git writes
// it: \a \b \t \n \v \f \r \" \\ and three octal digits for other bytes.
func quotedPrefix(s string) (string, string, error) {
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			if len(b) == 0 {
				return "", "", fmt.Errorf("empty quoted path")
			}
			return string(b), s[i+1:], nil
		case c != '\\':
			b = append(b, c)
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch c := s[i]; c {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case '"', '\\':
			b = append(b, c)
		case '0', '1', '2', '3':
			if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
				return "", "", fmt.Errorf("bad octal escape in %q", clip(s))
			}
			b = append(b, (c-'0')<<6|(s[i+1]-'0')<<3|(s[i+2]-'0'))
			i += 2
		default:
			return "", "", fmt.Errorf("unknown escape \\%c in %q", c, clip(s))
		}
	}
	return "", "", fmt.Errorf("unterminated quoted path %q", clip(s))
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// blobIDs reads "old..new [mode]" of an index line; ids that are not
// whole hex object names (abbreviated, or garbage) are dropped.
func blobIDs(s string) (string, string) {
	s, _, _ = strings.Cut(s, " ")
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return "", ""
	}
	return fullID(a), fullID(b)
}

// fullID is id when it names a git object in full (SHA-1 or SHA-256) and
// is not the null id, else "".
func fullID(id string) string {
	if len(id) != 40 && len(id) != 64 || strings.Trim(id, "0123456789abcdef") != "" || strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}

// clip shortens text quoted in an error.
func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
