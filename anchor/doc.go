// Package anchor places a quoted code snippet on the exact lines it came
// from: a review comment's quote, a finding's excerpt, a "change this"
// request. Quotes are approximate (re-indented, trailing spaces, diff
// markers left in, copied from the header while the comment names the
// source file), and a comment pinned on the wrong lines is worse than one
// left unplaced, so placing is strict and tiered:
//
//  1. the named file: the quote's lines, each trimmed, must equal
//     consecutive lines of the file (in diff mode: of the new side of one
//     of its hunks). Exactly one place anchors; several leave the quote
//     unplaced with the candidates;
//  2. the other files (of the diff, or of the workspace, bounded): exactly
//     one place anchors there, and the result says the file changed;
//  3. optionally a model (an OpenAI-compatible endpoint from the
//     environment, or the MCP client's own model through sampling) is
//     shown the file's diff, the quote and the comment, and copies the
//     lines it means; they must then pass tier 1. Otherwise the quote
//     stays unplaced and keeps its own text.
//
// The result says which tier placed the quote, for pipelines that treat
// a model's placement differently. Anchor reads files and runs git diff;
// it writes nothing and never edits.
package anchor
