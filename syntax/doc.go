// Package syntax owns tree-sitter for cchub: the languages it parses (their
// names, extensions and grammars) and the one parse cache that every
// tree-sitter user shares. It is the only package that links a grammar; the
// packages that need no tree (workspace, store, lspmux, ...) stay free of
// them.
//
// Invariants: there is one parse cache per workspace, and a file's content
// is parsed once however many tools look at it; every tree it hands out is
// Released by its holder, and closed exactly once, after the last holder
// released it and the cache evicted it.
//
// It does not deal with files: paths, confinement, walking and reading
// text are package workspace's. It knows no language beyond its grammar
// and the line comment that starts a note in it: what a tree means is for
// outline, structsearch and codegraph.
package syntax
