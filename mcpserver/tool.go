package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cchub/hub"
	"cchub/textfmt"
)

// toolSpec is one MCP tool: its name, what it tells a model, how it may be
// called without asking (annotations), and how to narrow a result that
// was cut.
type toolSpec struct {
	name, description string
	// readOnly tools change nothing; the others change files, and
	// destructive ones may replace or delete what is there.
	readOnly, destructive, idempotent bool
	// hint says how to narrow a result that the bound cut.
	hint string
}

// annotations says only what differs from MCP's defaults (a tool may
// change things, destructively, not idempotently): the tool list is paid
// for on every turn. nil when the defaults are right.
func (t toolSpec) annotations() *mcp.ToolAnnotations {
	switch {
	case t.readOnly:
		return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	case !t.destructive:
		no := false
		return &mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: t.idempotent}
	case t.idempotent:
		return &mcp.ToolAnnotations{IdempotentHint: true}
	}
	return nil
}

// addTool registers a tool whose arguments decode into In. The SDK's own
// validation answers a wrong field name with a schema error; decoding
// here instead says which field was meant and what the tool takes, and
// accepts a single string where a list of strings is asked for.
// The MCP session is the conversation: it gets one Run. What run answers
// is bounded (see Bound); an error is clipped (see clipError).
func addTool[In any](s *server, spec toolSpec, run func(ctx context.Context, r *hub.Run, in In) (string, error)) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %s: %v", spec.name, err))
	}
	// Unknown fields are refused by decodeArgs with the field meant, so
	// the schema need not say so on every turn.
	noAdditional(schema)
	for _, p := range schema.Properties {
		// A Go slice is inferred as null-or-array; clients that build a
		// form from the schema (the MCP Inspector) cannot send either.
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	fields := fieldsOf(reflect.TypeFor[In](), schema)
	// A field tagged mcp:"hidden" is taken but not advertised: the schema
	// is paid for on every turn, and the rare fields are taught where they
	// matter (the tool's description or an answer) instead.
	for _, f := range fields {
		if f.hidden {
			delete(schema.Properties, f.name)
			schema.PropertyOrder = slices.DeleteFunc(schema.PropertyOrder, func(n string) bool { return n == f.name })
		}
	}
	s.mcp.AddTool(&mcp.Tool{
		Name:        spec.name,
		Description: spec.description,
		InputSchema: schema,
		Annotations: spec.annotations(),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := decodeArgs(spec.name, req.Params.Arguments, fields, &in); err != nil {
			return errorResult(clipError(err)), nil
		}
		r := s.runs.run(req)
		ctx, budget := withBudget(context.WithValue(ctx, toolRequestKey{}, req))
		text, err := run(ctx, r, in)
		var ni *needInput
		if errors.As(err, &ni) {
			return &mcp.CallToolResult{InputRequests: ni.requests}, nil
		}
		if err != nil {
			return errorResult(clipError(err)), nil
		}
		// The hub's notices (a .cchub that is not the user's) lead the
		// first result of each session, and what an earlier change caused
		// that was not ready when it was answered leads the next result
		// once it is: the bound cuts the end, never them.
		return textResult(Bound(s.h.Root, spec.name, s.h.Notice(r)+s.h.LateNews(ctx, r)+text, spec.hint, *budget)), nil
	})
}

// textResult is the one shape every tool answers in: text for a model,
// bounded, and marked as an error when the call failed so the model reads
// the error's advice instead of retrying blindly.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func errorResult(err error) *mcp.CallToolResult {
	r := textResult(err.Error())
	r.IsError = true
	return r
}

// maxLimit is the most entries a model's glob, grep or search may ask
// for: past the bound they go to a spill file to grep, which stays useful
// up to a point; a huge limit would hold every match in memory first.
const maxLimit = 10_000

// capLimit bounds a limit a model asks for; 0 keeps the tool's default.
func capLimit(n int) int { return min(max(n, 0), maxLimit) }

// toolRequestKey keys the MCP request a tool call serves, in its context.
type toolRequestKey struct{}

// toolRequest is the MCP request the call in ctx serves, or nil.
func toolRequest(ctx context.Context) *mcp.CallToolRequest {
	req, _ := ctx.Value(toolRequestKey{}).(*mcp.CallToolRequest)
	return req
}

// needInput is a tool's request for the client's input (MCP's
// multi-round-trip requests): the call is answered with the requests, and
// the client calls again with the responses.
type needInput struct{ requests mcp.InputRequestMap }

func (*needInput) Error() string { return "the client's input is needed" }

// maxErrorBytes bounds an error's text. Errors repeat what they were given
// (a path, a pattern, an old_string), and a 100,000-character argument
// must not come back whole.
const maxErrorBytes = 4096

// clipError cuts the middle out of a long error: its start says what was
// wrong and its end what to do next, so both are kept.
func clipError(err error) error {
	msg := err.Error()
	if len(msg) <= maxErrorBytes {
		return err
	}
	head, tail := maxErrorBytes*3/4, maxErrorBytes/4
	for head > 0 && !isRuneStart(msg[head]) {
		head--
	}
	from := len(msg) - tail
	for from < len(msg) && !isRuneStart(msg[from]) {
		from++
	}
	return errors.New(msg[:head] + fmt.Sprintf(" [… %s bytes of this error cut …] ", textfmt.Thousands(from-head)) + msg[from:])
}

// noAdditional drops additionalProperties:false from s and the object
// schemas inside it (a list's entries).
func noAdditional(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		noAdditional(p)
	}
	noAdditional(s.Items)
}

// field is one argument a tool takes.
type field struct {
	name     string
	required bool
	kind     reflect.Kind // a string that spells a number or a bool is taken as one
	list     bool         // a []string: a lone string is taken as a list of one
	hidden   bool         // taken, but left out of the schema (tag mcp:"hidden")
}

func fieldsOf(t reflect.Type, schema *jsonschema.Schema) []field {
	req := map[string]bool{}
	for _, r := range schema.Required {
		req[r] = true
	}
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, field{name: name, required: req[name], kind: f.Type.Kind(), list: f.Type == reflect.TypeFor[[]string](),
			hidden: f.Tag.Get("mcp") == "hidden"})
	}
	return out
}

// decodeArgs decodes a tool's arguments into in, or explains what is
// wrong with them and what the tool takes.
func decodeArgs(tool string, raw json.RawMessage, fields []field, in any) error {
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fmt.Errorf("%s: the arguments are not a JSON object (%v); %s", tool, err, takes(tool, fields))
		}
	}
	known := map[string]field{}
	for _, f := range fields {
		known[f.name] = f
	}
	var unknown []string
	for k := range args {
		if _, ok := known[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		var parts []string
		fixed := map[string]json.RawMessage{}
		for k, v := range args {
			if _, ok := known[k]; ok {
				fixed[k] = v
			}
		}
		for _, k := range unknown {
			if m := meantField(k, fields, args); m != "" {
				parts = append(parts, fmt.Sprintf("%q (did you mean %q?)", k, m))
				fixed[m] = args[k]
			} else {
				parts = append(parts, fmt.Sprintf("%q", k))
			}
		}
		msg := fmt.Sprintf("%s: unknown %s %s; %s", tool, plural(len(unknown), "field", "fields"), strings.Join(parts, ", "), takes(tool, fields))
		if call := exampleCall(tool, fields, fixed); call != "" {
			msg += "; e.g. " + call
		}
		return errors.New(msg)
	}
	for _, f := range fields {
		v, ok := args[f.name]
		if f.required && (!ok || string(v) == "null") {
			return fmt.Errorf("%s: %q is required; %s", tool, f.name, takes(tool, fields))
		}
		if ok && len(v) > 0 && v[0] == '"' {
			args[f.name] = loosen(f, v)
		}
	}
	norm, _ := json.Marshal(args)
	dec := json.NewDecoder(bytes.NewReader(norm))
	if err := dec.Decode(in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: %q must be %s, not a JSON %s; %s", tool, te.Field, jsonKind(te.Type), te.Value, takes(tool, fields))
		}
		return fmt.Errorf("%s: bad arguments (%v); %s", tool, err, takes(tool, fields))
	}
	return nil
}

// exampleCall writes the call args would make with the right field names,
// as tool key=value, when every required field is given; long or spaced
// values are elided (the model has them already).
func exampleCall(tool string, fields []field, args map[string]json.RawMessage) string {
	parts := []string{tool}
	for _, f := range fields {
		v, ok := args[f.name]
		if !ok {
			if f.required {
				return ""
			}
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		if len(s) > 60 || strings.ContainsAny(s, " \t\n") || s == "" {
			s = "…"
		}
		parts = append(parts, f.name+"="+s)
	}
	return strings.Join(parts, " ")
}

// loosen takes a JSON string given for a field of another type as that
// type where it cannot be misread: "10" for a number, "true" for a bool, a
// lone path for a list of paths. Anything else is left for the decoder to
// refuse.
func loosen(f field, v json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	switch {
	case f.list:
		return append(append([]byte{'['}, v...), ']')
	case f.kind == reflect.Int:
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
			return json.RawMessage(strings.TrimSpace(s))
		}
	case f.kind == reflect.Bool:
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return json.RawMessage(strconv.FormatBool(b))
		}
	}
	return v
}

// takes lists a tool's fields, required ones first, for an error.
func takes(tool string, fields []field) string {
	var req, opt []string
	for _, f := range fields {
		if f.required {
			req = append(req, f.name)
		} else {
			opt = append(opt, f.name)
		}
	}
	s := tool + " takes " + strings.Join(req, ", ")
	if len(opt) > 0 {
		if len(req) > 0 {
			s += ", and optionally "
		} else {
			s = tool + " takes, all optional: "
		}
		s += strings.Join(opt, ", ")
	}
	return s
}

// fieldAliases are the names other tools give the fields models mean.
var fieldAliases = map[string]string{
	"file_path": "path", "filepath": "path", "file": "path", "filename": "path", "path_name": "path",
	"dir": "path", "directory": "path", "target_file": "path", "relative_path": "path",
	"old_str": "old_string", "old": "old_string", "old_text": "old_string", "search": "old_string", "find": "old_string",
	"new_str": "new_string", "new": "new_string", "new_text": "new_string", "replace": "new_string", "replacement": "new_string",
	"text": "content", "contents": "content", "data": "content", "file_text": "content",
	"query": "pattern", "regex": "pattern", "glob": "pattern", "expr": "pattern",
	"language": "lang", "symbol": "id", "name": "id", "symbol_id": "id",
	"start_line": "offset", "line": "offset", "from": "offset", "max_lines": "limit", "count": "limit", "lines": "limit",
	"case_insensitive": "ignore_case", "fixed_strings": "literal", "glob_pattern": "include", "include_pattern": "include",
	"paths_list": "paths", "files": "paths", "replaceall": "replace_all", "all": "replace_all",
	"diff": "patch", "input": "patch",
}

// meantField guesses which of fields an unknown name k stands for: an
// alias other tools use, the same name in another case or spelling, or a
// near typo; never a field the call already gives.
func meantField(k string, fields []field, given map[string]json.RawMessage) string {
	has := func(name string) bool {
		for _, f := range fields {
			if f.name == name {
				_, dup := given[name]
				return !dup
			}
		}
		return false
	}
	flat := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
	for _, f := range fields {
		if strings.NewReplacer("_", "", "-", "").Replace(f.name) == flat && has(f.name) {
			return f.name
		}
	}
	if a, ok := fieldAliases[strings.ToLower(k)]; ok && has(a) {
		return a
	}
	if a, ok := fieldAliases[flat]; ok && has(a) {
		return a
	}
	for _, f := range fields {
		if textfmt.EditDistance(strings.ToLower(k), f.name, 2) <= 2 && has(f.name) {
			return f.name
		}
	}
	return ""
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Slice:
		return "a list"
	}
	return "a " + t.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
