// Package workspace is the ground every other cchub package stands on: one
// checkout, confined.
//
// It resolves the paths an agent gives inside the workspace root (refusing
// "..", absolute paths outside, symlinks that lead out, and NUL bytes), walks
// files honouring .gitignore (nested ones too) while skipping .git and .cchub,
// reads files with an honest classification (binary, too large, invalid
// UTF-8), writes them atomically, maps extensions to tree-sitter languages,
// and owns the one parse cache that every tree-sitter user shares.
//
// Invariants: every path it returns to a caller is relative to the root and
// slash-separated; every tree it hands out is closed exactly once, after the
// last holder releases it and the cache has evicted it.
//
// It does not search, format or decide anything about what a tool shows:
// that is locate's, structsearch's and codegraph's business.
package workspace
