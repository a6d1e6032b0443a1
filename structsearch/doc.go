// Package structsearch finds code by shape. A pattern such as
// `if $X != nil { return $X }` is parsed by the grammar of the files it is
// matched against, in the first wrapping context that accepts it
// (expression, statement, member, top level), and matches a node when the
// two trees correspond one for one: the same kinds, the same text at the
// leaves, the same significant children. Whitespace, comments and
// separators (commas, semicolons) do not count; the content of a string
// does, even where the grammar makes it no node of its own.
//
// $NAME matches exactly one named node and captures it; $$$NAME matches
// zero or more siblings; $_ and $$$ match without capturing. A name used
// twice must capture the same tokens both times. A metavariable that is a
// string's whole content captures that content (`os.Getenv("$K")`).
//
// The matcher (Compile, Pattern.Match, Pattern.MayMatch) is pure: it takes
// a tree and bytes and returns matches. MayMatch refuses, without parsing,
// bytes that cannot hold a match: the pattern's literal tokens must occur,
// and tokens next to each other in the pattern next to each other in the
// bytes. Match visits only the nodes that hold an occurrence of the
// pattern's rarest token run, since every match holds one. Search is the
// driver that walks a workspace, skips files MayMatch refuses, and parses
// and matches the rest in parallel; it uses workspace's parse cache and
// walker, never a parser of its own.
package structsearch
