package workspace

import "io/fs"

// TokenFilter is what a token index (package tokenindex) can say of the
// file rel, d its directory entry, for the literals lits, without reading
// it: true when it is sure (what of depends on who asks: that the file
// lacks one of lits, or that it parses without a syntax error), false when
// unsure. Grep and structural search are lent such answers by their
// caller as functions of this type, so that neither imports the index,
// and the index imports neither.
type TokenFilter func(rel string, d fs.DirEntry, lits [][]byte) bool
