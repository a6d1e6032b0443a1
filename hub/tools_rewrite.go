package hub

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/astedit"
)

type rewriteIn struct {
	Pattern  string   `json:"pattern" jsonschema:"structural pattern, as for search: $NAME is one node, $$$NAME zero or more; e.g. errors.Wrap($E, $MSG)"`
	Template string   `json:"template" jsonschema:"what each match becomes, naming the pattern's metavariables: e.g. fmt.Errorf($MSG+\": %w\", $E); $$$ARGS keeps its separators and comments; multi-line text is re-indented where it lands"`
	Lang     string   `json:"lang,omitempty" jsonschema:"language (go, python, javascript, typescript, tsx, rust, java, c, cpp); default: every file in the language of its extension"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files or directories to rewrite, relative to the root (default: the whole workspace)"`
}

type resolveIn struct {
	Action string `json:"action,omitempty" jsonschema:"list (default), show, accept or discard"`
	ID     string `json:"id,omitempty" jsonschema:"the staged change's id, from rewrite or list"`
}

const rewriteDescription = "Structural rewrite, staged: finds the pattern like search and replaces each match with the template, but writes nothing. " +
	"Answers an id, the number of changes, each place (path:line) and the unified diff. The outermost of nested matches is rewritten. " +
	"Apply or drop it with resolve; a change whose files were edited meanwhile is refused whole."

const resolveDescription = "Pending staged changes (rewrites, lsp renames): list them, show one's diff, accept (write all its files at once, or none) or discard. " +
	"Whether an agent may accept depends on the workspace's approval policy; if not, the answer says what the user must run."

func addRewriteTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "rewrite", description: rewriteDescription, readOnly: true, // it stages; files change only through resolve
		hint: "rewrite fewer paths; the full diff is in the file named above"},
		func(ctx context.Context, _ *Run, in rewriteIn) (string, error) {
			if strings.TrimSpace(in.Pattern) == "" {
				return "", fmt.Errorf("pattern is empty: give the code shape to find, e.g. errors.Wrap($E, $MSG)")
			}
			o, err := h.Rewrite(ctx, astedit.RewriteOptions{Pattern: in.Pattern, Template: in.Template, Lang: in.Lang, Paths: in.Paths})
			if err != nil {
				return "", err
			}
			return o.Text(), nil
		})
	addTool(s, h, toolSpec{name: "resolve", description: resolveDescription, destructive: true,
		hint: "show the change with cchub review ID in a terminal"},
		func(ctx context.Context, r *Run, in resolveIn) (string, error) {
			action := strings.ToLower(strings.TrimSpace(in.Action))
			if action == "" {
				action = "list"
				if in.ID != "" {
					action = "show"
				}
			}
			if action == "list" {
				all, err := h.Staged(ctx)
				if err != nil {
					return "", err
				}
				return all.Text(), nil
			}
			if in.ID == "" {
				return "", fmt.Errorf("%s needs the id of a staged change; resolve with action \"list\" shows them", action)
			}
			if action == "show" {
				o, err := h.StagedChange(ctx, in.ID)
				if err != nil {
					return "", err
				}
				return o.Text(), nil
			}
			res, err := h.Resolve(ctx, in.ID, action, r, elicitApproval(ctx, in.ID))
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}

// elicitApproval asks the user of the calling client through MCP
// elicitation, as a multi-round-trip request (the SDK fulfils it itself
// for clients of older protocol versions): the first call answers with
// the question, the client's retry carries the user's answer.
func elicitApproval(ctx context.Context, id string) Asker {
	req := toolRequest(ctx)
	if req == nil || req.Session == nil {
		return nil
	}
	key := "approve-" + id
	return func(_ context.Context, message string) (bool, bool, error) {
		if resp, ok := req.Params.InputResponses[key].(*mcp.ElicitResult); ok {
			yes, _ := resp.Content["approve"].(bool)
			return resp.Action == "accept" && yes, true, nil
		}
		init := req.Session.InitializeParams()
		if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil {
			return false, false, nil
		}
		return false, false, &needInput{requests: mcp.InputRequestMap{key: &mcp.ElicitParams{
			Message: message,
			RequestedSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"approve": map[string]any{"type": "boolean", "title": "Apply the change"}},
				"required":   []string{"approve"},
			},
		}}}
	}
}
