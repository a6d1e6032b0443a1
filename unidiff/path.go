package unidiff

import (
	"fmt"
	"strings"
	"time"
)

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
	// Same name on both sides: "a/X b/X", or "X X" (git diff --no-prefix).
	if n := len(s); n >= 3 && (n-1)%2 == 0 && s[(n-1)/2] == ' ' {
		a, b := s[:(n-1)/2], s[(n-1)/2+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:], true
		}
		if a == b {
			return a, b, true
		}
	}
	// Different names without quotes: a rename, whose lines follow.
	if i := strings.Index(s, " b/"); i >= 0 && strings.HasPrefix(s, "a/") {
		return s[2:i], s[i+3:], true
	}
	return "", "", false
}

// sidePath reads the path of a "--- " or "+++ " line: prefix (a/ or b/)
// dropped, "" for /dev/null. Git ends a name that holds a space with a
// tab; diff -u ends every name with a tab and a timestamp, and the epoch
// stands for a file that does not exist. Without a tab, the white space
// around the name is not part of it.
func sidePath(s, prefix string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		p, _, err := quotedPrefix(s)
		if err != nil {
			return "", err
		}
		return nonEmpty(strings.TrimPrefix(p, prefix))
	}
	if name, stamp, ok := strings.Cut(s, "\t"); ok {
		if isEpoch(stamp) {
			return "", nil
		}
		s = name
	} else {
		s = strings.TrimSpace(s)
	}
	if s == "/dev/null" {
		return "", nil
	}
	return nonEmpty(strings.TrimPrefix(s, prefix))
}

// nonEmpty refuses a path that is empty or only a prefix: "" stands for
// /dev/null.
func nonEmpty(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path")
	}
	return p, nil
}

// isEpoch says whether a diff -u timestamp is the Unix epoch, which GNU
// diff -N writes for the missing side of an added or deleted file.
func isEpoch(stamp string) bool {
	stamp = strings.TrimSpace(stamp)
	// The zone may be written +00:00.
	if n := len(stamp); n >= 3 && stamp[n-3] == ':' {
		stamp = stamp[:n-3] + stamp[n-2:]
	}
	t, err := time.Parse("2006-01-02 15:04:05 -0700", stamp) // a fraction of a second may follow the seconds
	return err == nil && t.Unix() == 0 && t.Nanosecond() == 0
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
		c = s[i]
		if k := strings.IndexByte(escapes, c); k >= 0 {
			b = append(b, escaped[k])
			continue
		}
		if c < '0' || c > '3' {
			return "", "", fmt.Errorf("unknown escape \\%c in %q", c, clip(s))
		}
		if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
			return "", "", fmt.Errorf("bad octal escape in %q", clip(s))
		}
		b = append(b, (c-'0')<<6|(s[i+1]-'0')<<3|(s[i+2]-'0'))
		i += 2
	}
	return "", "", fmt.Errorf("unterminated quoted path %q", clip(s))
}

// escapes are the letters git writes after a backslash for the bytes of
// escaped.
const escapes, escaped = "abtnvfr\"\\", "\a\b\t\n\v\f\r\"\\"

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
