// Package workspace is the ground every other cchub package stands on: one
// checkout, confined.
//
// It resolves the paths an agent gives inside the workspace root (refusing
// "..", absolute paths outside, symlinks that lead out, and NUL bytes), walks
// files honouring .gitignore (nested ones too) while skipping .git and .cchub,
// reads files with an honest classification (binary, too large, invalid
// UTF-8) and writes them atomically.
//
// Invariants: every path it returns to a caller is relative to the root and
// slash-separated.
//
// It does not search, format or decide anything about what a tool shows:
// that is locate's, structsearch's and codegraph's business. It does not
// parse: languages, grammars and the parse cache are package syntax's, so
// that a package that needs only files links no tree-sitter grammar.
package workspace
