package review

import (
	"errors"
	"unicode/utf8"
)

// Keys that are not one character. They are negative so that they can
// never collide with a rune typed by the user.
const (
	keyEsc     rune = -1 - iota
	keyUp           // ESC [ A, ESC O A
	keyDown         // ESC [ B, ESC O B
	keyPgUp         // ESC [ 5 ~
	keyPgDn         // ESC [ 6 ~
	keyUnknown      // any other escape sequence, Alt+key, a broken byte
)

const (
	keyCtrlB rune = 0x02
	keyCtrlC rune = 0x03 // in raw mode ISIG is off: Ctrl-C is a byte, not SIGINT
	keyCtrlD rune = 0x04
	keyCtrlF rune = 0x06
)

// escWaitMillis is how long a lone ESC waits for the rest of an escape
// sequence. Terminals send a sequence in one write, so the rest is
// normally in the same read; the wait covers slow links.
const escWaitMillis = 50

// errTimeout is fill's answer when nothing arrived within its timeout.
var errTimeout = errors.New("review: no input")

// next returns the next key press. One read may hold several keys (typed
// ahead, or pasted); they are returned one at a time, in order.
func (k *keyReader) next() (rune, error) {
	if len(k.buf) == 0 {
		if err := k.fill(-1); err != nil {
			return 0, err
		}
	}
	if k.buf[0] == 0x1b {
		if len(k.buf) == 1 {
			if err := k.fill(escWaitMillis); err != nil && k.ctx.Err() != nil {
				return 0, k.ctx.Err()
			}
		}
		return k.escape(), nil
	}
	if !utf8.FullRune(k.buf) {
		// The rest of a multi-byte character may be in flight.
		if err := k.fill(escWaitMillis); err != nil && k.ctx.Err() != nil {
			return 0, k.ctx.Err()
		}
	}
	r, size := utf8.DecodeRune(k.buf)
	k.buf = k.buf[size:]
	if r == utf8.RuneError && size <= 1 {
		return keyUnknown, nil
	}
	return r, nil
}

// escape consumes one escape sequence (or a lone ESC) from k.buf.
func (k *keyReader) escape() rune {
	b := k.buf
	if len(b) == 1 {
		k.buf = b[1:]
		return keyEsc
	}
	switch b[1] {
	case '[':
		// CSI: parameter and intermediate bytes, then one final byte
		// in 0x40–0x7E.
		i := 2
		for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
			i++
		}
		if i == len(b) {
			k.buf = b[len(b):]
			return keyUnknown
		}
		k.buf = b[i+1:]
		switch string(b[2 : i+1]) {
		case "A":
			return keyUp
		case "B":
			return keyDown
		case "5~":
			return keyPgUp
		case "6~":
			return keyPgDn
		}
		return keyUnknown
	case 'O':
		if len(b) < 3 {
			k.buf = b[len(b):]
			return keyUnknown
		}
		k.buf = b[3:]
		switch b[2] {
		case 'A':
			return keyUp
		case 'B':
			return keyDown
		}
		return keyUnknown
	}
	// ESC followed by anything else is Alt+key: not Esc, so that it
	// cannot quit by accident.
	_, size := utf8.DecodeRune(b[1:])
	k.buf = b[1+size:]
	return keyUnknown
}
