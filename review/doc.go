// Package review is the terminal approval prompt for a staged change: a
// structural rewrite that touches many files is shown to a human as a
// numbered, coloured unified diff (paged when it is taller than the
// screen), and the human answers with one key.
//
// Render draws a Change anywhere (a pipe, a log, CI): file headers, old
// and new line numbers in a gutter, optional ANSI colours and truncation
// to a width. Prompt draws it on a terminal and returns the Decision:
// Apply (y), Discard (n) or Keep (q, Esc, Ctrl-C, Ctrl-D, end of input,
// a cancelled context, any error). Callers that are not on a terminal
// (IsTerminal) call Render without colours and ask nothing.
//
// Invariants:
//   - The terminal is put back as it was on every return from Prompt,
//     panics included; while raw, every line ends in "\r\n".
//   - Keys typed before the question is on screen are thrown away when
//     Prompt starts, so a stray key can never approve a change unseen.
//   - Nothing reaches the screen wider than the terminal: code, paths
//     and titles are truncated with "…", tabs expanded to 4 columns, and
//     control characters, bidirectional controls and invalid bytes shown
//     as textfmt.Visible's escapes (\x1b, \u202e, \xff), so a file's
//     contents cannot move the cursor, recolour or reorder the screen.
//   - An error always comes with Keep: when in doubt, nothing changes.
//
// What it does not do: write, stage or discard anything (the caller acts
// on the Decision, and says "applying…"), compute diffs (File.Diff comes
// from udiff), or decide anything but which key was pressed.
package review
