package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"cchub/hub"
)

type resolveIn struct {
	Action string `json:"action,omitempty" jsonschema:"list, show, accept or discard"`
	ID     string `json:"id,omitempty"`
	Page   int    `json:"page,omitempty" jsonschema:"show: page of the diff" mcp:"hidden"`
}

const resolveDescription = "Staged changes: list, show (the diff), accept (all files or none) or discard."

func addResolve(s *server) {
	addTool(s, toolSpec{name: "resolve", description: resolveDescription, destructive: true,
		hint: "show the change with cchub review ID in a terminal"},
		func(ctx context.Context, r *hub.Run, in resolveIn) (string, error) {
			action := strings.ToLower(strings.TrimSpace(in.Action))
			if action == "" {
				action = "list"
				if in.ID != "" {
					action = "show"
				}
			}
			if in.Page != 0 && (action != "show" || in.Page < 0) {
				return "", fmt.Errorf("page %d: page numbers a shown change's diff, from 1: resolve action=show id=ID page=2", in.Page)
			}
			if action == "list" {
				all, err := s.h.Staged(ctx)
				if err != nil {
					return "", err
				}
				return all.Text(), nil
			}
			if in.ID == "" {
				return "", fmt.Errorf("%s needs the id of a staged change; resolve action=list shows them", action)
			}
			if action == "show" {
				o, err := s.h.StagedChange(ctx, in.ID)
				if err != nil {
					return "", err
				}
				return o.PageText(in.Page)
			}
			res, err := s.h.Resolve(ctx, in.ID, action, r, s.elicitApproval(ctx, in.ID))
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
