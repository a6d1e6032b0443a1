// Package lang is cchub's one table of languages: the names people type
// for each (`-l go`, `py`), the file extensions that select it, the
// family it shares names and imports with, how a line comment starts,
// the language id a language server is told, and which files its test
// frameworks collect by default; beyond the table, which other
// extensions are code (a shell script, SQL) or documents (IsCode,
// IsDocument). It links no grammar, so every package, the ground floor
// included, may ask it; package syntax attaches the tree-sitter grammars
// to these languages by name.
//
// Invariants:
//   - No other package spells an extension table or a language's test
//     file convention: deps_test.go fails a map, slice or switch of
//     extensions outside this package.
//   - An extension selects at most one language; lookups ignore case.
//
// What it does not do: parse (package syntax), say which language server
// or debug adapter serves a language (lspmux, dapsession), or read a
// file's content to guess its language (a shebang, say).
package lang
