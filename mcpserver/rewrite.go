package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"cchub/astedit"
	"cchub/hub"
)

type rewriteIn struct {
	Pattern  string   `json:"pattern" jsonschema:"structural pattern, as for search: $NAME is one node, $$$NAME zero or more; e.g. errors.Wrap($E, $MSG)"`
	Template string   `json:"template" jsonschema:"what each match becomes, naming the pattern's metavariables: e.g. fmt.Errorf($MSG+\": %w\", $E); $$$ARGS keeps its separators and comments; multi-line text is re-indented where it lands"`
	Lang     string   `json:"lang,omitempty" jsonschema:"language (go, python, javascript, typescript, tsx, rust, java, c, cpp); default: every file in the language of its extension"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories to rewrite, relative to the root (default: the whole workspace)"`
}

const rewriteDescription = "Structural rewrite, staged: finds the pattern like search and replaces each match with the template, but writes nothing. " +
	"Answers an id, the number of changes, each place (path:line) and the unified diff. The outermost of nested matches is rewritten. " +
	"Apply or drop it with resolve; a change whose files were edited meanwhile is refused whole."

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
