package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/hub"
)

type rewriteIn struct {
	Pattern  string   `json:"pattern"`
	Template string   `json:"template" jsonschema:"e.g. fmt.Errorf($M, $E)"`
	Lang     string   `json:"lang,omitempty" jsonschema:"default: by file extension" mcp:"hidden"`
	Paths    []string `json:"paths,omitempty"`
}

const rewriteDescription = "Structural rewrite, staged: matches of pattern become template; answers an id for resolve."

func addRewrite(s *server) {
	addTool(s, toolSpec{name: "rewrite", description: rewriteDescription, readOnly: true, // it stages; files change only through resolve
		hint: "rewrite fewer paths; the full diff is in the file named above"},
		func(ctx context.Context, _ *hub.Run, in rewriteIn) (string, error) {
			if strings.TrimSpace(in.Pattern) == "" {
				return "", fmt.Errorf("pattern is empty: give the code shape to find, e.g. errors.Wrap($E, $MSG)")
			}
			o, err := s.h.Rewrite(ctx, astedit.RewriteOptions{Pattern: in.Pattern, Template: in.Template, Lang: in.Lang, Paths: in.Paths})
			if err != nil {
				return "", err
			}
			return o.Text(), nil
		})
}
