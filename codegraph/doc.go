// Package codegraph answers "what is here, and what depends on it" from
// tree-sitter trees: the definitions of a workspace (taken from package
// outline, so there is one notion of a symbol), the calls in each of them,
// the imports of each file, and the edges from a call to the definitions
// it may reach, each with how sure it is: exact (same scope, a method of
// the enclosing class), import (through the file's imports), or name-only
// (the name alone). Unresolved calls are kept.
//
// Trees come from the shared parse cache (package syntax); the
// per-language call and import queries are in queries/*.scm. Go and
// Python, whose queries are plain shapes, are read by native readers
// instead (native.go): the same matches, found by walking the tree
// flattened in one call into C (syntax.Flatten), at a fraction of a query
// cursor's cost. Files are indexed by content hash: an unchanged file is
// not read again.
//
// What it does not do: types. A call through an interface or a value of
// unknown type reaches every method of the name, as name-only.
package codegraph
