// Package structsearch finds code by shape. A pattern such as
// `if $X != nil { return $X }` is parsed by the grammar of the files it is
// matched against, in the first wrapping context that accepts it
// (expression, statement, member, top level), and matches a node when the
// two trees correspond one for one: the same kinds, the same text at the
// leaves, the same significant children. Whitespace, comments and
// separators (commas, semicolons) do not count.
//
// $NAME matches exactly one named node and captures it; $$$NAME matches
// zero or more siblings; $_ and $$$ match without capturing. A name used
// twice must capture the same tokens both times.
//
// The matcher (Compile, Pattern.Match, Pattern.MayMatch) is pure: it takes
// a tree and bytes and returns matches. Search is the driver that walks a
// workspace, skips files whose bytes cannot match, and parses and matches
// the rest in parallel; it uses workspace's parse cache and walker, never
// a parser of its own.
package structsearch
