// Package blast measures what a change does to the code around it, for
// CI and for review: the definitions a git diff changed (modified, added,
// removed, moved), then the definitions that call them, by distance,
// their files and the tests among them (cchub blast).
//
// The diff is git's own (git diff --unified=0 --find-renames), read by
// unidiff, which is fuzzed; a diff it finds any problem in is an error.
// A changed line belongs to the innermost function or method holding it,
// or to a type when no function holds it. The base side is read from git
// (only the files the diff changed); the head side is the working tree's
// code graph or, given a revision, every file of it read from git without
// a checkout. A removed definition's blast is its callers in head that
// still call its name: they will break. Lines that only moved with a
// renamed file change nothing.
//
// With Options.Tests it also selects the tests the change can break: the
// tests the changes reach through calls of any evidence at any distance,
// sure or cautious by the evidence of their surest path, and whole
// packages, files or directories, or the whole suite, wherever the graph
// cannot see what a change does (build files, test data, embedded and
// non-code files, build constraints, anything outside a function, a
// module's body); never fewer, each with why. The selection's core
// (tests.go, assemble.go) knows no language: it asks one runner per test
// framework (runner.go), each in a file of its own that registers it
// (gotest.go: go test; pytest.go; unittest.go names pytest's tests as
// python -m unittest does), what each part of a change means for its
// tests, and a test of a language no runner runs (JavaScript,
// TypeScript, Rust, …) selects the whole suite.
//
// Invariants: git runs as a child process in its own group, with the
// caller's context, in the workspace root (paths are relative to it, files
// outside it are not compared); every option that shapes its output is
// given, so the user's git configuration cannot change what is parsed.
// The working tree's files are read through the workspace root, never
// past it.
// Paths in reports are relative to the root, lines 1-based and inclusive.
// The JSON (Report) and SARIF forms are complete; the text forms cut each
// list at a limit and say how many more there are.
//
// What it does not do: resolve calls (that is codegraph's, with its
// confidence classes and its blind spot for types), look at untracked
// files (git diff does not show them), or say whether a change is right.
package blast
