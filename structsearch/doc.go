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
// A pattern of several statements is a sequence: it matches that many
// consecutive statements of one block, wherever the block is, with the
// same metavariables throughout, and the match spans from the start of the
// first statement to the end of the last:
//
//	$A.mu.Lock()
//	defer $A.mu.Unlock()
//
// Comments between the statements do not count, in the pattern or in the
// code. A block is any list of statements: a function body or a nested
// block, a case clause's statements, a Python module or suite, the lines
// between C preprocessor conditionals; and, since they are lists too, the
// members of a class or struct body and the declarations of a file
// (`package $P` then `import "sync"`). A line that is only a $$$ stands for
// any statements (`$A.Lock()`, `$$$`, `$A.Unlock()`: a lock, anything, and
// the first unlock of the same lock after it, in the same block), and
// needs no `;` where statements end with one. In each block the runs are
// found leftmost first and never overlap: after a run the search goes on
// after its last statement, so four statements `a()` hold two runs of
// `a()` `a()`, not three. A $$$ takes as few statements as it can, except
// at the ends of the pattern: a leading $$$ reaches back to the start of
// the block and a trailing one to its end (`defer $F()` then `$$$REST`:
// the defer and everything after it), so such a pattern matches at most
// once per block. Runs in a nested block are found as well, inside one
// statement of the outer run or apart from it. A line that is an
// expression, not a statement (Rust's tail `x`), also matches the
// statement that is nothing but that expression (`x;`). Several siblings that are no statements of a list (two
// `case` clauses, read as children of a switch) are refused with an error
// that says so, never searched as something else. The pattern's lines may
// carry the indentation they had in the file: what all share is removed.
//
// The matcher (Compile, Pattern.Match, Pattern.MayMatch) is pure: it takes
// a tree and bytes and returns matches. MayMatch refuses, without parsing,
// bytes that cannot hold a match: the pattern's literal tokens must occur,
// and tokens next to each other in the pattern next to each other in the
// bytes. Match visits only the nodes that hold an occurrence of the
// pattern's rarest token run, since every match holds one. Search is the
// driver that walks a workspace, skips files MayMatch refuses, and parses
// and matches the rest in parallel; it uses syntax's parse cache and
// workspace's walker, never a parser of its own. What a caller that keeps
// state lends a search (a parse cache, a walk its file watcher vouches
// for, a token index's answers) is passed to SearchWith as Sources, apart
// from the options a user gives; it changes what is read and parsed,
// never what is found.
package structsearch
