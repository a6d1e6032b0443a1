// Package textedit changes files the way an agent asks: edit (replace one
// place, found by a matcher that forgives near-misses), write (whole file)
// and apply_patch (several files, all or nothing).
//
// The matcher is tolerant inside and strict outside. It tries a chain of
// ways to find old_string, from exact bytes to forgiving comparisons, and
// the first way that finds anything decides: one place is edited, several
// places (or a near tie between look-alike blocks) are an ambiguity error,
// a place far larger than old_string is refused. It never says which way
// matched, and it never picks one of several candidates. When nothing
// matches and every line of old_string carries the consecutive line numbers
// read prints ("12<TAB>code"), the chain runs once more without them; the
// numbers never choose between places.
//
// apply_patch takes its own format (*** Begin Patch ...). A unified diff is
// refused with the same change converted to that format, which the model
// can send as it is.
//
// A forgiving match changes only what the model changed. The difference
// between old_string and new_string is carried onto the file's own lines:
// lines the model left alone keep the file's text (even where the model
// misremembered them), changed lines keep the file's indentation and the
// text around the change, added lines take the file's indentation.
//
// Files stay themselves: line endings (LF or CRLF), a byte-order mark, the
// trailing newline and the file mode are kept; writes are atomic.
//
// Each change holds its files' locks from the read it checks to the write,
// and its result carries what it wrote (Written: each file's bytes before
// and after, from that read and that write), so a caller never reads a
// file again for its next step. apply_patch is handed, per call, the
// Committer that writes its verified files (the hub's journaled commit);
// without one it writes them itself, putting back what it wrote if a write
// fails.
//
// Seen remembers what a conversation last saw of each file, so an edit of a
// file that changed on disk since is refused; the hub owns one Seen per run.
// The package does not read or show files for the model; locate does.
package textedit
