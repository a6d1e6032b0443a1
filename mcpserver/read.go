package mcpserver

import (
	"context"

	"cchub/hub"
	"cchub/locate"
)

type readIn struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

const readDescription = "Read a file a page at a time, or list a directory."

func addRead(s *server) {
	addTool(s, toolSpec{name: "read", description: readDescription, readOnly: true,
		hint: "read a smaller window with offset/limit"},
		func(ctx context.Context, run *hub.Run, in readIn) (string, error) {
			// A page ends at about 8 KB (naming the offset that
			// continues) unless the call gave a limit: then up to the
			// wide bound.
			if in.Limit > 0 {
				askedForMore(ctx)
			}
			maxBytes, maxLines := readBudget(budgetOf(ctx))
			limit := in.Limit
			if limit <= 0 || limit > maxLines {
				limit = maxLines
			}
			r, err := s.h.Read(ctx, locate.ReadOptions{Path: in.Path, Offset: in.Offset, Limit: limit, MaxBytes: maxBytes}, run)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}
