package lspmux

import "strings"

// IsIdentByte says whether b may be part of an identifier: an ASCII
// letter, digit or underscore, or any byte of a non-ASCII character.
func IsIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// IdentIndex is the byte offset of name as a whole identifier in s, or -1.
func IdentIndex(s, name string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		if (i == 0 || !IsIdentByte(s[i-1])) && (i+len(name) == len(s) || !IsIdentByte(s[i+len(name)])) {
			return i
		}
		off = i + 1
	}
}
