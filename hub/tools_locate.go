package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/locate"
)

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"glob: without a slash it matches file names at any depth (*.go); with one, whole paths (cmd/**/main.go)"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search under, relative to the root (default: the root)"`
}

type grepIn struct {
	Pattern    string `json:"pattern" jsonschema:"RE2 regular expression (Go syntax), or plain text with literal=true"`
	Literal    bool   `json:"literal,omitempty" jsonschema:"treat pattern as plain text, not a regular expression"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"match regardless of letter case"`
	Path       string `json:"path,omitempty" jsonschema:"file or directory to search, relative to the root (default: the root)"`
	Include    string `json:"include,omitempty" jsonschema:"only files whose path matches this glob, e.g. *.go or src/**/*.{ts,tsx}"`
	Limit      int    `json:"limit,omitempty" jsonschema:"most matching lines to show (default 100)"`
}

type readIn struct {
	Path   string `json:"path" jsonschema:"file or directory, relative to the root"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to show, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most lines to show (default 2000)"`
}

type outlineIn struct {
	Path string `json:"path" jsonschema:"source file (or directory, for a map of its files), relative to the root"`
}

type readSymbolIn struct {
	ID string `json:"id" jsonschema:"symbol id as outline prints it: path:line:name, e.g. hub/hub.go:20:New"`
}

func addLocateTools(s *mcp.Server, h *Hub) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "glob",
		Description: locate.GlobDescription,
	}, tool(h, "glob", "use a narrower pattern or path", func(ctx context.Context, run *Run, in globIn) (string, error) {
		r, err := h.Glob(ctx, locate.GlobOptions{Pattern: in.Pattern, Path: in.Path})
		if err != nil {
			return "", err
		}
		return r.Text(), nil
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "grep",
		Description: locate.GrepDescription,
	}, tool(h, "grep", "add include or path, or a more specific pattern", func(ctx context.Context, run *Run, in grepIn) (string, error) {
		r, err := h.Grep(ctx, locate.GrepOptions{Pattern: in.Pattern, Literal: in.Literal, IgnoreCase: in.IgnoreCase, Path: in.Path, Include: in.Include, Limit: in.Limit})
		if err != nil {
			return "", err
		}
		return r.Text(), nil
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "read",
		Description: locate.ReadDescription + " For source files, outline first and read_symbol what you need.",
	}, tool(h, "read", "read a smaller window with offset/limit", func(ctx context.Context, run *Run, in readIn) (string, error) {
		r, err := h.Read(ctx, locate.ReadOptions{Path: in.Path, Offset: in.Offset, Limit: in.Limit}, run)
		if err != nil {
			return "", err
		}
		return r.Text(), nil
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "outline",
		Description: "A source file's symbols (types, functions, methods, constants, code that runs at import) with exact line ranges, signatures and doc summaries; on a directory, a map of its files. Outline before reading.",
	}, tool(h, "outline", "outline a single file or a subdirectory", func(ctx context.Context, run *Run, in outlineIn) (string, error) {
		r, err := h.Outline(ctx, in.Path, locate.OutlineOptions{})
		if err != nil {
			return "", err
		}
		return r.Text(), nil
	}))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "read_symbol",
		Description: "Read one symbol's lines, numbered, by the id outline prints (path:line:name).",
	}, tool(h, "read_symbol", "outline the symbol to find its parts, then read a range with read offset/limit", func(ctx context.Context, run *Run, in readSymbolIn) (string, error) {
		r, err := h.ReadSymbol(ctx, in.ID)
		if err != nil {
			return "", err
		}
		return r.Text(), nil
	}))
}
