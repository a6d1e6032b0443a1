// Package tokenindex answers, before a file is read, whether it can hold
// a literal: per text file a Bloom filter of its trigrams (ASCII letters
// folded, so one filter serves case-sensitive and case-insensitive
// literals), keyed by the content's SHA-256, kept in the checkout's store
// and shared by content through the shared store, and for Python and Go
// files whether the content parses without a syntax error (what lets a
// structural search parse such a file only in part).
//
// Update (cchub index) stats every file and reads only those whose
// workspace.Identity (size, mtime, ctime, inode, device) does not vouch
// for what was read, then writes a pack of one generation's entries that
// a one-shot process reads per question (Lacks); Load holds them in
// memory for a long-lived hub (Index).
//
// Invariants:
//   - A filter never says "cannot" of a literal the file holds: the
//     answer is "cannot" or "maybe", and the searcher reads every maybe.
//   - An answer is given for a file only while its workspace.Identity is
//     what it was when it was read (a same-size edit with its mtime put
//     back moves ctime), and never for a file changed within the racy
//     window (two seconds) of its read, or one over MaxFileBytes.
//   - A damaged or stale pack is never believed: it is checked end to end
//     (CRC-32C) and against the store's generation, and the store is read
//     instead.
//
// What it does not do: decide a match, walk for search or grep (they
// take its answers as a function and never import it), or parse: whether
// a file parses cleanly is told to Update (Syntax).
package tokenindex
