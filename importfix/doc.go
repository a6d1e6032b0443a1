// Package importfix fixes the imports of changed Go content in process:
// the imports a change made unused are removed and the standard-library
// packages it newly names are added, with goimports' grouping and order,
// without running anything.
//
// It looks only at what changed: a qualifier (the fmt of fmt.Errorf) the
// old content used and the new does not frees its import; one the new
// content uses and the old did not needs one. An import is added from a
// sibling file of the same package that already has it (goimports'
// "assume sibling imports valid") or from the standard library, whose
// packages and exported names are a table made from the toolchain's API
// files (stdlib.txt, go generate). Everything else — a package only the
// module graph can name, a standard-library name that two packages
// export, an import whose package name is not its path's — is reported
// as Unresolved, for the language server: Fix never guesses.
//
// Invariants: content whose imports need no change is returned as it
// was, byte for byte; when imports change, only the import declarations
// are rewritten (formatted as goimports formats them), the rest of the
// file is kept byte for byte; no process is started and no file is read
// (the caller passes the sibling files).
//
// It does not format code, resolve packages outside the standard library
// (golang.org/x/tools/imports.Process would: it runs `go env` and `go
// list` in the workspace, a go command configured by the repository), or
// fix imports the change did not disturb.
package importfix
