package hub

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/locate"
	"cchub/outline"
)

type globIn struct {
	Pattern string `json:"pattern" jsonschema:"glob: without a slash it matches file names at any depth (*.go); with one, whole paths (cmd/**/main.go)"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search under, relative to the root (default: the root)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most files to list (default 100)"`
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
	Path   string `json:"path" jsonschema:"source file (or directory, for a map of its files), relative to the root"`
	Match  string `json:"match,omitempty" jsonschema:"keep only symbols whose name contains this (case-insensitive), or matches this glob (Serve*, *Handler)"`
	Detail bool   `json:"detail,omitempty" jsonschema:"also show doc summaries, decorators, every member of a var/const group and the blocks of long functions"`
}

type readSymbolIn struct {
	ID string `json:"id" jsonschema:"path:Name, path:Type.method or path:line:Name, e.g. store/store.go:New or store/store.go:Store.Add; path:line reads the symbol around that line"`
}

// maxLimit is the most entries a model's glob, grep or search may ask
// for: past the bound they go to a spill file to grep, which stays useful
// up to a point; a huge limit would hold every match in memory first.
const maxLimit = 10_000

// capLimit bounds a limit a model asks for; 0 keeps the tool's default.
func capLimit(n int) int { return min(max(n, 0), maxLimit) }

// maxDirFiles bounds the files a directory outline parses for a model;
// the CLI parses them all.
const maxDirFiles = 200

// readBytes and readLines are what one read or read_symbol result may
// list, leaving the bound's room for the header and the continuation note:
// a long page ends early and names the next offset, so a read never needs
// a spill file.
const (
	readBytes = MaxResultBytes - 2048
	readLines = MaxResultLines - 10
)

// readDescription is locate's, with the page size a model gets.
var readDescription = strings.Replace(locate.ReadDescription, "(default 2000)", fmt.Sprintf("(default and at most %d)", readLines), 1) +
	" For source files, outline first and read_symbol what you need."

const outlineDescription = "A source file's symbols, one line each: START-END, kind, name and signature (functions and methods show no kind word; Go methods are Type.method); " +
	"groups of variables or fields are folded onto one line. detail=true adds doc summaries; match filters by name. " +
	"On a directory, a map of its files and their top-level symbols (with match: where a name is defined). " +
	"Outline a file before reading it, then read_symbol or read offset/limit just the lines you need."

const readSymbolDescription = "Read one symbol's lines (a function, method, type, class, constant), numbered, by name: " +
	"id=path:Name, path:Type.method (Class.method, Ledger::book), or path:line:Name when a name is defined more than once; " +
	"path:LINE reads the innermost symbol around that line. No outline is needed when you know the name; " +
	"an ambiguous or unknown name answers with the ids that would work."

func addLocateTools(s *mcp.Server, h *Hub) {
	addTool(s, h, toolSpec{name: "glob", description: locate.GlobDescription, readOnly: true,
		hint: "use a narrower pattern or path"},
		func(ctx context.Context, run *Run, in globIn) (string, error) {
			r, err := h.Glob(ctx, locate.GlobOptions{Pattern: in.Pattern, Path: in.Path, Limit: capLimit(in.Limit)})
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
	addTool(s, h, toolSpec{name: "grep", description: locate.GrepDescription, readOnly: true,
		hint: "add include or path, or a more specific pattern"},
		func(ctx context.Context, run *Run, in grepIn) (string, error) {
			r, err := h.Grep(ctx, locate.GrepOptions{Pattern: in.Pattern, Literal: in.Literal, IgnoreCase: in.IgnoreCase, Path: in.Path, Include: in.Include, Limit: capLimit(in.Limit)})
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
	addTool(s, h, toolSpec{name: "read", description: readDescription, readOnly: true,
		hint: "read a smaller window with offset/limit"},
		func(ctx context.Context, run *Run, in readIn) (string, error) {
			limit := in.Limit
			if limit <= 0 || limit > readLines {
				limit = readLines
			}
			r, err := h.Read(ctx, locate.ReadOptions{Path: in.Path, Offset: in.Offset, Limit: limit, MaxBytes: readBytes}, run)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
	addTool(s, h, toolSpec{name: "outline", description: outlineDescription, readOnly: true,
		hint: "outline a single file or a subdirectory, or filter with match"},
		func(ctx context.Context, run *Run, in outlineIn) (string, error) {
			r, err := h.Outline(ctx, in.Path, outline.Options{Match: in.Match, Detail: in.Detail, MaxFiles: maxDirFiles})
			if err != nil {
				return "", err
			}
			if r.Dir != nil {
				return r.Dir.TextWithin(MaxResultBytes - 1024), nil
			}
			return r.Text(), nil
		})
	addTool(s, h, toolSpec{name: "read_symbol", description: readSymbolDescription, readOnly: true,
		hint: "outline the symbol to find its parts, then read a range with read offset/limit"},
		func(ctx context.Context, run *Run, in readSymbolIn) (string, error) {
			r, err := h.ReadSymbol(ctx, in.ID, outline.Budget{Bytes: readBytes, Lines: readLines}, run)
			if err != nil {
				return "", err
			}
			return r.Text(), nil
		})
}
