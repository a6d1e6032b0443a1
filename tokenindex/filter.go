package tokenindex

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// Format is the encoding of a filter; a filter of another format is
// built again from the file.
const Format = 1

// A filter is a Bloom filter of a file's trigrams: every run of three
// bytes, ASCII letters folded to lower case (so that one filter answers
// case-sensitive and case-insensitive literals alike). A literal of three
// bytes or more can occur in the file only if each of its trigrams is in
// the filter; a filter never says no to a literal the file holds, and
// says yes to one it lacks about as often as the literal has trigrams the
// file lacks, each with a chance of 3-15%.
//
// Encoding: the format byte, the base-2 logarithm of the number of bits,
// then the bits, least significant first within each byte.

const (
	probes  = 3
	minLog  = 6  // 64 bits: a file of a few trigrams
	maxLog  = 23 // 1 MiB: the most a filter takes (a file of 2 million distinct trigrams)
	perItem = 4  // bits per distinct trigram, at least (rounded up to a power of two)
)

// ErrBadFilter is wrapped by the error of bytes that are no filter.
var ErrBadFilter = errors.New("not a token filter")

// fold maps ASCII upper-case letters to lower case.
var fold = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

// scratch is a set of every trigram (2^24 bits), for counting a file's
// distinct ones; it is cleared after each use through the list of those
// set.
type scratch struct {
	seen []uint64
	list []uint32
}

var scratches = sync.Pool{New: func() any { return &scratch{seen: make([]uint64, 1<<24/64)} }}

// Build returns the filter of src.
func Build(src []byte) []byte {
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	s.list = s.list[:0]
	if len(src) >= 3 {
		t := uint32(fold[src[0]])<<8 | uint32(fold[src[1]])
		for _, c := range src[2:] {
			t = (t<<8 | uint32(fold[c])) & (1<<24 - 1)
			w, b := t/64, uint64(1)<<(t%64)
			if s.seen[w]&b == 0 {
				s.seen[w] |= b
				s.list = append(s.list, t)
			}
		}
	}
	lg := max(minLog, min(maxLog, bits.Len(uint(perItem*len(s.list)-1))))
	if len(s.list) == 0 {
		lg = minLog
	}
	out := make([]byte, 2+(1<<lg)/8)
	out[0], out[1] = Format, byte(lg)
	set := out[2:]
	mask := uint32(1)<<lg - 1
	for _, t := range s.list {
		s.seen[t/64] = 0
		h1, h2 := hashes(t)
		for i := range uint32(probes) {
			p := (h1 + i*h2) & mask
			set[p/8] |= 1 << (p % 8)
		}
	}
	return out
}

// hashes are the two hashes a trigram's probes are made of (Kirsch and
// Mitzenmacher): h1 + i*h2 for the i-th.
func hashes(t uint32) (uint32, uint32) {
	x := uint64(t) * 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return uint32(x), uint32(x>>32) | 1
}

// Filter is a decoded filter.
type Filter struct {
	set  []byte
	mask uint32
}

// Decode checks that b is a filter of this format, and returns it; b is
// kept, not copied.
func Decode(b []byte) (Filter, error) {
	if len(b) < 2 || b[0] != Format {
		return Filter{}, fmt.Errorf("%w: its header is not format %d", ErrBadFilter, Format)
	}
	lg := int(b[1])
	if lg < minLog || lg > maxLog || len(b) != 2+(1<<lg)/8 {
		return Filter{}, fmt.Errorf("%w: %d bytes for 2^%d bits", ErrBadFilter, len(b), lg)
	}
	return Filter{set: b[2:], mask: uint32(1)<<lg - 1}, nil
}

// MayContain says whether the file could hold lit: always for a literal
// under three bytes.
func (f Filter) MayContain(lit []byte) bool {
	if len(lit) < 3 {
		return true
	}
	t := uint32(fold[lit[0]])<<8 | uint32(fold[lit[1]])
	for _, c := range lit[2:] {
		t = (t<<8 | uint32(fold[c])) & (1<<24 - 1)
		h1, h2 := hashes(t)
		for i := range uint32(probes) {
			p := (h1 + i*h2) & f.mask
			if f.set[p/8]&(1<<(p%8)) == 0 {
				return false
			}
		}
	}
	return true
}

// MayContainAll says whether the file could hold every one of lits.
func (f Filter) MayContainAll(lits [][]byte) bool {
	for _, l := range lits {
		if !f.MayContain(l) {
			return false
		}
	}
	return true
}
