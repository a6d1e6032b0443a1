// Package unidiff reads unified diffs (git diff, diff -u) into one model:
// files, with their paths on each side and what the diff did to them
// (modified, added, deleted, renamed, copied, binary), and hunks, with their
// header's numbers and their lines (context, deleted, added), each line with
// its number on each side.
//
// Every cchub reader of a diff uses it: blast's changed line ranges,
// anchor's new side of each hunk, apply_patch's conversion of a unified diff
// to its own format, and review's numbered rendering of a staged change.
// They differ in what they forgive, not in how they read: Parse always
// reads everything it can and lists what does not read as a diff as
// Problems; blast, anchor and apply_patch refuse a diff with any, review
// draws what was read.
//
// Invariants:
//   - Parse reads untrusted text: it never panics, and its work is linear
//     in the text (each line is looked at a bounded number of times; a
//     header's line counts allocate nothing until lines are there).
//   - A hunk's header counts are the truth about its body: a deleted line
//     "-- x" reads "--- x" and is still a line of the hunk, not a header.
//     A body shorter than its counts, or with a line that does not fit
//     them, is a Problem.
//   - A diff without Problems reads back the same from its canonical form
//     (FuzzParse checks it): every fact the model holds is one the text
//     stated.
//
// What it reads: git's extended headers (new file, deleted file, rename
// and copy with their quoted paths, index lines, binary markers; mode and
// similarity lines are read past), traditional ---/+++ headers followed by
// a hunk (with diff -u's timestamps, the epoch standing for a missing
// file), hunk headers with omitted counts (@@ -1 +1 @@), "\ No newline at
// end of file" markers, empty context lines whose space was stripped, and
// CRLF line ends (kept in the lines' text: they are the file's).
//
// What it does not do: apply a diff, make one (go-udiff makes them),
// decode git's binary patches (a binary file is marked as such), read
// combined diffs of merges, or guess a hunk's place from its lines.
package unidiff
