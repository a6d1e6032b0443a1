// Package astedit stages wide changes for review and commits them whole
// or not at all.
//
// A change — a structural rewrite (a pattern and a template), a language
// server's rename, a multi-file patch — is first built in memory (Rewrite
// for the first; the others bring their FileEdits) and staged (Stage): the
// store keeps, per file, the hash of the content it was made from, the new
// content and the diff a reviewer reads, under a short id. A staged change
// survives restarts and is seen by every process of the workspace, so an
// agent can stage it and a human review it in another terminal.
//
// Commit applies a staged change. It first compares every file with its
// hash at staging; any difference (an edit by hand, a formatter, another
// change) rejects the whole change, since writing it would undo that work
// behind a diff that looks deliberate. Then, under a lock every process
// of the workspace shares: the journal (in the store) records the plan;
// new contents are written to temporary files beside their targets and
// synced; the journal is marked past the point of no return; the files
// are renamed into place; the journal row is removed last. Recover, which
// every start of cchub runs, rolls an interrupted commit back (before the
// point of no return: the temporary files are removed and the change stays
// staged) or forward (after it: the remaining renames are done), so after a
// crash at any instant the tree is wholly old or wholly new. What it
// returns carries each file's bytes as it checked them and as it wrote
// them, for the hub to tell the language servers.
//
// Templates (template.go) substitute a match's captures, keeping a $$$'s
// separators and comments, and re-indent multi-line text to the column
// where it lands, in the file's own indentation style.
//
// astedit does not decide who may approve a change (the hub's policy), and
// does not talk to language servers or terminals: the hub tells servers
// about committed files, and package review asks the human.
package astedit
