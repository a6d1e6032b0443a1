package mcpserver

import (
	"context"

	"cchub/anchor"
	"cchub/hub"
)

type anchorIn struct {
	Path    string `json:"path"`
	Snippet string `json:"snippet"`
	Comment string `json:"comment,omitempty" jsonschema:"the review comment" mcp:"hidden"`
	Base    string `json:"base,omitempty"`
	Diff    string `json:"diff,omitempty"`
}

const anchorDescription = "Place a quoted snippet at its exact lines; never guesses."

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
