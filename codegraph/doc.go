// Package codegraph answers "what is here, and what depends on it" from
// tree-sitter trees: the definitions of a workspace (taken from package
// outline, so there is one notion of a symbol), the calls in each of them,
// the imports of each file, and the edges from a call to the definitions
// it may reach, each with its evidence: exact (same scope, a method of
// the enclosing class or of the value's inferred type), import (through
// the file's imports), name-only (the name alone), possible (a call too
// widely named to link, followed only into the definitions a question
// names), and confirmed once a language server agreed (Confirmer).
// Unresolved calls are kept. A function named as a value (a callback) is
// a reference edge, linked only where the name says which function.
//
// Trees come from the shared parse cache (package syntax); the
// per-language call and import queries are in queries/*.scm. Go and
// Python, whose queries are plain shapes, are read by native readers
// instead (native.go): the same matches, found by walking the tree
// flattened in one call into C (syntax.Flatten), at a fraction of a query
// cursor's cost. Files are indexed by content hash: an unchanged file is
// not read again.
//
// Types are inferred from what files say, without a type checker
// (types.go): a value's type from its declaration, a constructor or
// literal it was assigned, a parameter, a field, a result, an embedded
// type, Python's self.attr and annotations. A call through an interface
// or on a value whose type cannot be told reaches every method of the
// name, as name-only.
package codegraph
