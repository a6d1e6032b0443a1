// Package store is cchub's embedded database: one SQLite file, cchub.db
// in the workspace's state directory (<root>/.cchub when that is this
// user's, else a private directory; see workspace's state.go), that the
// MCP server and a human's CLI calls open at the same time.
//
// It owns three things: opening the file safely (in the state directory
// the workspace chose, never through a symlink), the schema (every migration of every
// owner, numbered in one list in migrations.go and applied once, whoever
// opens first), and runs: the conversations (an MCP session, or a named CLI
// run) that other state hangs from, with what each run has seen of each
// file. Other packages (the ledger, the code graph's index, staged changes
// and the commit journal) keep their own tables, added by their own
// migrations, and reach them through Write (and DB for plain reads).
//
// Invariants:
//   - Every write is one transaction begun with BEGIN IMMEDIATE, so a
//     writer takes SQLite's write lock before it reads anything; two
//     processes never reach the deadlock in which both hold a read
//     snapshot and want to write (which SQLite answers with "database is
//     locked" at once, whatever the busy timeout). Writers of one process
//     also queue in the process, so SQLite's busy wait is left for the
//     other process.
//   - Every connection waits up to BusyTimeout for a lock another process
//     holds, runs in WAL mode (readers never block the writer) with
//     foreign keys on, so deleting a run deletes everything it owns.
//   - A database written by a newer cchub (a migration this code does not
//     know) is refused with an error that says so; it is never written.
//   - Staged changes and commit journal rows record their writer (the
//     user's stamp for the workspace): only the writer's own are listed,
//     shown, discarded, closed or reported as Mine, so a database copied
//     from elsewhere cannot have its journal obeyed or its changes applied.
//
// The shared half (shared.go) is content-addressed: what a file's content
// yields (its extraction) and resolved graphs (snapshots), sealed with the
// SHA-256 of their key and data, and with a team's store key (key.go) an
// HMAC-SHA256 of that seal: a keyed reader uses no row without a valid
// MAC, and a process opened to read (ReadOnly) writes nothing there. Two engines hold it: LocalShared, the
// shared_ tables of this file (the default), and a PostgreSQL database
// many checkouts and machines share (postgres.go, OpenShared with a
// postgres:// URL; pgx, tables cchub_ with their own migrations). The
// PostgreSQL engine never holds a transaction for long (autocommit
// chunks), inserts keys sorted in every statement so concurrent writers
// cannot deadlock, and when the database cannot be used it falls back to
// LocalShared with one notice saying why and what to do. Nothing tied to
// one checkout is ever kept there. Tests run one suite against both
// engines on a private server (store/pgtest).
//
// It does not decide what is stored or for how long (that is the owner's
// policy: the hub ends an MCP session's run, and says when old runs are
// pruned), and it does not hold a Root: the caller keeps the workspace open.
package store
