package mcpserver

import (
	"context"

	"cchub/anchor"
	"cchub/hub"
)

type anchorIn struct {
	Path    string `json:"path" jsonschema:"the file the quoted code is said to be from, relative to the root"`
	Snippet string `json:"snippet" jsonschema:"the quoted code, as it was quoted (indentation, trailing spaces and diff markers may differ)"`
	Comment string `json:"comment,omitempty" jsonschema:"the review comment the quote belongs to (helps the optional model tier)"`
	Base    string `json:"base,omitempty" jsonschema:"place the quote in git diff BASE (the working tree against this revision, new side) instead of in the files"`
	Diff    string `json:"diff,omitempty" jsonschema:"place the quote in this unified diff (new side) instead of in the files"`
}

const anchorDescription = "Anchor a quoted snippet to its exact line range, or say it cannot: first in the named file, then in exactly one other file (of the diff or the workspace), " +
	"then, if a model is available, at the lines a model copies from the file's diff. Several matches are never guessed between: the candidates are listed. " +
	"Answers the tier that placed it, path:START-END and the verbatim lines."

func addAnchor(s *server) {
	addTool(s, toolSpec{name: "anchor", description: anchorDescription, readOnly: true,
		hint: "quote fewer lines"},
		func(ctx context.Context, _ *hub.Run, in anchorIn) (string, error) {
			o, err := s.h.Anchor(ctx, anchor.Request{Path: in.Path, Snippet: in.Snippet, Comment: in.Comment, Base: in.Base, DiffText: in.Diff}, samplingModel(ctx))
			if err != nil {
				return "", err
			}
			return o.Text(), nil
		})
}
