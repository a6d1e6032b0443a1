package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cchub/dapsession"
	"cchub/hub"
)

type debugIn struct {
	Op          string           `json:"op"`
	Program     string           `json:"program,omitempty" jsonschema:"Go package dir or .py file"`
	Test        string           `json:"test,omitempty" jsonschema:"a Go test name"`
	Args        []string         `json:"args,omitempty"`
	Env         []string         `json:"env,omitempty" jsonschema:"entries KEY=VALUE" mcp:"hidden"`
	Breakpoints debugBreakpoints `json:"breakpoints,omitempty"`
	Path        string           `json:"path,omitempty" jsonschema:"breakpoints: a file to clear" mcp:"hidden"`
	StopOnEntry bool             `json:"stop_on_entry,omitempty" mcp:"hidden"`
	TTLSeconds  int              `json:"ttl_seconds,omitempty" jsonschema:"time limit (default 600)" mcp:"hidden"`
	Language    string           `json:"language,omitempty" jsonschema:"go or python" mcp:"hidden"`
	Expression  string           `json:"expression,omitempty"`
	Frame       int              `json:"frame,omitempty"`
	Depth       int              `json:"depth,omitempty" jsonschema:"value depth (default 2)" mcp:"hidden"`
}

// debugBreakpoints are breakpoints as models write them: a list of
// entries, or one entry alone.
type debugBreakpoints []debugBreakpoint

// debugBreakpoint is one breakpoint: an object, or a string
// "path:line", "path:line if COND" or a function's name.
type debugBreakpoint struct {
	At   string `json:"at" jsonschema:"path:line or a function"`
	Text string `json:"text,omitempty" jsonschema:"the line's text, checked"`
	If   string `json:"if,omitempty"`
	Log  string `json:"log,omitempty" jsonschema:"print, not stop: x={x}"`
}

func (bs *debugBreakpoints) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] != '[' {
		var b debugBreakpoint
		if err := b.UnmarshalJSON(data); err != nil {
			return err
		}
		*bs = debugBreakpoints{b}
		return nil
	}
	var list []debugBreakpoint
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*bs = list
	return nil
}

// breakpointKeys are the names models give a breakpoint's parts (lower
// case, without _ and -), and the part each means.
var breakpointKeys = map[string]string{
	"at": "at", "location": "at", "loc": "at", "where": "at", "place": "at", "breakpoint": "at", "target": "at",
	"function": "at", "func": "at", "fn": "at", "name": "at", "method": "at", "symbol": "at", "functionname": "at",
	"path": "path", "file": "path", "filepath": "path", "filename": "path",
	"line": "line", "lineno": "line", "linenumber": "line",
	"text": "text", "linetext": "text", "expect": "text", "expected": "text", "expectedtext": "text", "content": "text",
	"code": "text", "linecontent": "text", "source": "text", "sourceline": "text", "snippet": "text", "match": "text",
	"if": "if", "condition": "if", "cond": "if", "when": "if",
	"log": "log", "logmessage": "log", "message": "log", "msg": "log", "print": "log", "logpoint": "log",
}

const breakpointForm = `a breakpoint is {"at": "path:line" or "Function", "text": "the line's text", "if": "COND", "log": "x is {x}"}, or a string "path:line if COND"`

func (b *debugBreakpoint) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*b = debugBreakpoint{At: s}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("breakpoint %s is neither a string nor an object; %s", clipJSON(data), breakpointForm)
	}
	parts := map[string]string{}
	var unknown []string
	for k, v := range obj {
		part, ok := breakpointKeys[strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))]
		if !ok {
			unknown = append(unknown, strconv.Quote(k))
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			if n, err := strconv.Atoi(string(v)); err == nil && part == "line" {
				s = strconv.Itoa(n)
			} else {
				return fmt.Errorf("breakpoint %s: %q must be a string; %s", clipJSON(data), k, breakpointForm)
			}
		}
		if s = strings.TrimSpace(s); s != "" && parts[part] == "" {
			parts[part] = s
		} else if s != "" && parts[part] != s {
			return fmt.Errorf("breakpoint %s gives %s twice; %s", clipJSON(data), part, breakpointForm)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("breakpoint %s: unknown %s %s; %s", clipJSON(data), plural(len(unknown), "key", "keys"), strings.Join(unknown, ", "), breakpointForm)
	}
	at := parts["at"]
	if at == "" {
		at = parts["path"]
	}
	if line := parts["line"]; line != "" && at != "" && !strings.Contains(at, ":") {
		at += ":" + line
	}
	if at == "" {
		return fmt.Errorf("breakpoint %s has no place; %s", clipJSON(data), breakpointForm)
	}
	*b = debugBreakpoint{At: at, Text: parts["text"], If: parts["if"], Log: parts["log"]}
	return nil
}

// clipJSON is a JSON value as an error quotes it: at most 120 bytes.
func clipJSON(data []byte) string {
	s := string(data)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func (in debugIn) request() dapsession.Request {
	bps := make([]dapsession.BreakpointSpec, len(in.Breakpoints))
	for i, b := range in.Breakpoints {
		bps[i] = dapsession.BreakpointSpec(b)
	}
	return dapsession.Request{
		Op: in.Op, Program: in.Program, Test: in.Test, Args: in.Args, Env: in.Env, Breakpoints: bps, Path: in.Path,
		StopOnEntry: in.StopOnEntry, TTLSeconds: in.TTLSeconds, Language: in.Language, Expression: in.Expression,
		Frame: in.Frame, Depth: in.Depth,
	}
}

const debugDescription = "Debug Go or Python. op: launch, breakpoints, continue, next, step_in, step_out, pause, inspect, evaluate, output, terminate."

func addDebug(s *server) {
	addTool(s, toolSpec{name: "debug", description: debugDescription, destructive: true, hint: "inspect with a smaller depth, or evaluate one expression"},
		func(ctx context.Context, r *hub.Run, in debugIn) (string, error) {
			res, err := s.h.Debug(ctx, r, in.request())
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		})
}
