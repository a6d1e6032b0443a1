// Package textedit changes files the way an agent asks: edit (replace one
// place, found by a matcher that forgives near-misses), write (whole file)
// and apply_patch (several files, all or nothing).
//
// The matcher is tolerant inside and strict outside. It tries a chain of
// ways to find old_string, from exact bytes to forgiving comparisons, and
// the first way that finds anything decides: one place is edited, several
// places are an ambiguity error, a place far larger than old_string is
// refused. It never says which way matched, and it never picks one of
// several candidates.
//
// Files stay themselves: line endings (LF or CRLF), a byte-order mark, the
// trailing newline and the file mode are kept; writes are atomic.
//
// It does not track what a conversation has read; the hub does, and passes
// what it expects the file to hold (see Expect).
package textedit
