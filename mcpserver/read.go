package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"cchub/hub"
	"cchub/locate"
)

type readIn struct {
	Path   string `json:"path" jsonschema:"file or directory, relative to the root"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to show, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most lines to show (default 2000)"`
}

// readDescription is locate's, with the page size a model gets.
var readDescription = strings.Replace(locate.ReadDescription, "(default 2000)", fmt.Sprintf("(default and at most %d)", readLines), 1) +
	" For source files, outline first and read_symbol what you need."

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
