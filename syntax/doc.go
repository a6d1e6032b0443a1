// Package syntax owns tree-sitter for cchub: the languages it parses (their
// names, extensions and grammars), the one parse cache that every
// tree-sitter user shares, and the one place that reads tree-sitter's C
// node layout (cnode.go) for the walks that must make few calls into C: a
// tree flattened into one array in one call (Flatten, for codegraph's
// native readers) and nodes read in one call each, their children in one
// more (Nodes, for outlines). It is the only package that links a grammar;
// the packages that need no tree (workspace, store, lspmux, ...) stay free
// of them.
//
// Invariants: there is one parse cache per workspace, and a file's content
// is parsed once however many tools look at it; every tree it hands out is
// Released by its holder, and closed exactly once, after the last holder
// released it and the cache evicted it; every array Flatten returns is
// given back with ReleaseFlat. Only cnode.go knows how go-tree-sitter lays
// out a node, and it checks that layout at run time before it reads one:
// when the check fails, Flatten says so and its caller reads the tree
// through go-tree-sitter, and Nodes.Root panics.
//
// It does not deal with files: paths, confinement, walking and reading
// text are package workspace's. It knows no language beyond its grammar
// and the line comment that starts a note in it: what a tree means is for
// outline, structsearch and codegraph.
package syntax
