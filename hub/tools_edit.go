package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/textedit"
)

type editIn struct {
	Path       string `json:"path" jsonschema:"file to change, relative to the root"`
	OldString  string `json:"old_string" jsonschema:"the text to replace, copied from the file (a few lines around the change make it unique)"`
	NewString  string `json:"new_string" jsonschema:"the text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring exactly one"`
}

type writeIn struct {
	Path           string `json:"path" jsonschema:"file to create or replace, relative to the root; parent directories are created"`
	Content        string `json:"content" jsonschema:"the whole new content of the file"`
	KeepLineEnding bool   `json:"keep_line_endings,omitempty" jsonschema:"when replacing a file, keep its line endings (CRLF or LF) and byte-order mark"`
}

type patchIn struct {
	Patch string `json:"patch" jsonschema:"a patch from *** Begin Patch to *** End Patch with *** Add File:, *** Delete File: and *** Update File: (optional *** Move to:) sections; hunks start with @@ and hold lines prefixed ' ', '-' or '+'"`
}

// editDescription tells a model how to edit well; its wording is the
// contract, not the matcher's internals.
const editDescription = "Replace text in a file: old_string must identify exactly one place (copy it from read or read_symbol output; " +
	"include surrounding lines to make it unique), unless replace_all is set. The file keeps its line endings, BOM and mode. " +
	"The answer shows the changed lines, numbered. An edit to a file that changed since you read it is refused: read it again."

const patchDescription = "Apply a multi-file patch (add, delete, update, move) in this format, not a unified diff:\n" +
	"*** Begin Patch\n*** Update File: path\n@@ a line near the change\n context line\n-removed line\n+added line\n*** End Patch\n" +
	"Every file is checked before any is written; then all change or none."

func addEditTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "edit", description: editDescription, destructive: true},
		func(ctx context.Context, r *Run, in editIn) (string, error) {
			res, err := h.Edit(ctx, in.Path, textedit.Change{Old: in.OldString, New: in.NewString, ReplaceAll: in.ReplaceAll}, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
	addTool(s, h, toolSpec{name: "write", description: "Create a file or replace all of it, atomically. An existing file must have been read in this conversation first. Prefer edit for changes to an existing file.", destructive: true, idempotent: true},
		func(ctx context.Context, r *Run, in writeIn) (string, error) {
			res, err := h.Write(ctx, in.Path, in.Content, textedit.WriteOptions{KeepStyle: in.KeepLineEnding, ReadFirst: true}, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
	addTool(s, h, toolSpec{name: "apply_patch", description: patchDescription, destructive: true},
		func(ctx context.Context, r *Run, in patchIn) (string, error) {
			res, err := h.ApplyPatch(ctx, in.Patch, r)
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
