// Package textfmt is how cchub writes text for a model or a person and
// reads a file's text: places (path:START-END) and numbered lines, one
// scheme for every tool; counts ("1,204 files"); lines clipped with a
// note; how near two names are (edit distance, for "did you mean"); and a
// file's text format — byte-order mark, UTF-16, line endings — decoded
// for editing and encoded back as it was.
//
// Invariants:
//   - Pure functions of their arguments: no file system, no state.
//   - A place or a listed line is written one way, here, so a model
//     learns one scheme.
//
// Visible, VisibleLines and VisibleJSON say how text from a repository is
// shown on a terminal without driving it; the front ends decide where.
//
// What it does not do: read or write files (package workspace), write to
// a terminal (the front ends), or know a language's syntax.
package textfmt
