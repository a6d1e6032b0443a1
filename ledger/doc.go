// Package ledger remembers which diagnostics a run has already been told,
// so that after each write a model is told only what is new.
//
// A diagnostic is known by its key: the file (relative to the root), the
// severity, the code and the message. Never by its position: a line
// inserted above an old error moves it, and moving is not news. After a
// write the caller hands Report the full current diagnostics of the files
// involved; Report returns the ones whose key this run has not been told,
// and counts the rest. A key that disappears from its file is forgotten,
// so if it comes back (an error fixed and then made again) it is news
// again.
//
// Invariants:
//   - Everything a run was told lives in the store (table ledger_keys), so
//     several CLI calls of one --run share one ledger and each MCP session,
//     a run of its own, has its own. One Report is one write transaction:
//     two calls for the same run, in two processes, never both report a key.
//   - A key present at several places in one file is one key: reported
//     once, at its first place, with the others listed after it.
//   - Lines and columns are 1-based; converting from LSP happens before
//     Report (in lspmux), which refuses a 0.
//
// It does not start language servers or ask them anything (that is
// lspmux), and it does not decide which files a write involved: the caller
// does. News.Text bounds what it writes; cutting a whole tool result down
// is still the hub's.
package ledger
