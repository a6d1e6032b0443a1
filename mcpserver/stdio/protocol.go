package stdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// How the transport judges a line before the SDK sees it. JSON-RPC
// 2.0 says what each kind of bad input gets:
//
//   - a line that is not JSON: a parse error (-32700) with a null id;
//   - JSON that is not a valid request: an invalid request error (-32600),
//     with the request's id when it has a usable one, else null;
//   - a notification (a string method and no id): never a reply, even
//     when it is malformed; it is dropped, and stderr says why. So is a
//     malformed response from the client: an answer to it could be taken
//     for the answer to the client's own request of the same id.
//
// MCP narrows JSON-RPC: an id is a string or an integer, never null, and
// since 2025-06-18 there are no batches. A batch is answered with one
// error per request in it, so a client that sent one hears back about
// each call at once instead of waiting for replies that never come.

// verdict is what becomes of one line: a message for the SDK, an error
// reply, or nothing (a blank line, or a notification dropped with a note).
type verdict struct {
	msg     jsonrpc.Message
	reply   []byte
	dropped string
}

// nullID is the id of a reply to a line whose request id is unknown.
var nullID = json.RawMessage("null")

// errorReply is a JSON-RPC error response. The SDK's encoder leaves out a
// null id, which JSON-RPC requires, so this transport writes its own.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc.Error   `json:"error"`
}

func newErrorReply(id json.RawMessage, code int64, msg string) errorReply {
	return errorReply{JSONRPC: "2.0", ID: id, Error: jsonrpc.Error{Code: code, Message: msg}}
}

func replyWith(v any) verdict {
	data, err := json.Marshal(v)
	if err != nil { // an id that was not JSON after all: answer without it
		data, _ = json.Marshal(newErrorReply(nullID, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error()))
	}
	return verdict{reply: data}
}

func invalidRequest(id json.RawMessage, format string, args ...any) verdict {
	return replyWith(newErrorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+fmt.Sprintf(format, args...)))
}

// exampleRequest is shown to a client whose line was not a request.
const exampleRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// judgeLine decides what becomes of one line of input.
func judgeLine(line []byte) verdict {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return verdict{} // a blank line between messages harms nobody
	}
	var whole json.RawMessage
	if err := json.Unmarshal(line, &whole); err != nil {
		return replyWith(newErrorReply(nullID, jsonrpc.CodeParseError,
			fmt.Sprintf("parse error: the line is not JSON (%v); send each JSON-RPC message as one line of JSON, e.g. %s", err, exampleRequest)))
	}
	switch line[0] {
	case '{':
		return judgeObject(line)
	case '[':
		return judgeBatch(line)
	}
	return invalidRequest(nullID, "a JSON-RPC message is a JSON object, not %s; e.g. %s", jsonValueKind(line), exampleRequest)
}

// judgeObject decides what becomes of a line holding one JSON object.
func judgeObject(line []byte) verdict {
	f := members(line)
	id, hasID := f["id"]
	method, hasMethod := f["method"]
	versionOK := isString(f["jsonrpc"], "2.0")
	methodOK := hasMethod && len(method) > 0 && method[0] == '"'
	switch {
	case hasMethod && !hasID:
		if !methodOK {
			// Not a notification at all (JSON-RPC's own example of an
			// invalid request): said so, with a null id.
			return invalidRequest(nullID, `"method" must be a string naming the method, e.g. %s`, exampleRequest)
		}
		if !versionOK {
			return verdict{dropped: fmt.Sprintf(`dropped the notification %s: "jsonrpc" must be "2.0"`, clip(method))}
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return verdict{dropped: fmt.Sprintf("dropped the notification %s: %v", clip(method), err)}
		}
		return verdict{msg: msg}
	case hasMethod:
		if err := checkID(id); err != nil {
			return invalidRequest(nullID, "%v", err)
		}
		if !versionOK {
			return invalidRequest(id, `"jsonrpc" must be "2.0", e.g. %s`, exampleRequest)
		}
		if !methodOK {
			return invalidRequest(id, `"method" must be a string naming the method, e.g. %s`, exampleRequest)
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return invalidRequest(id, "%v", err)
		}
		return verdict{msg: msg}
	case hasID && (f["result"] != nil || f["error"] != nil):
		// A response to a request of the server's. Answering a bad one
		// could be taken for the answer to the client's own request of the
		// same id, so it is only dropped.
		if err := checkID(id); err != nil {
			return verdict{dropped: fmt.Sprintf("dropped a response: %v", err)}
		}
		if !versionOK {
			return verdict{dropped: fmt.Sprintf(`dropped the response to %s: "jsonrpc" must be "2.0"`, clip(id))}
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return verdict{dropped: fmt.Sprintf("dropped the response to %s: %v", clip(id), err)}
		}
		return verdict{msg: msg}
	}
	return invalidRequest(nullID, `no "method": a request names the method to call, e.g. %s`, exampleRequest)
}

// clip shortens a value quoted in a note on stderr.
func clip(raw json.RawMessage) string {
	const most = 100
	if len(raw) <= most {
		return string(raw)
	}
	return string(raw[:most]) + "…"
}

// judgeBatch answers a JSON-RPC batch, which MCP no longer has.
func judgeBatch(line []byte) verdict {
	const why = "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one request per line, each a JSON object"
	var elems []json.RawMessage
	_ = json.Unmarshal(line, &elems) // the line is a JSON array
	var replies []errorReply
	for _, e := range elems {
		if id, ok := requestID(e); ok {
			replies = append(replies, newErrorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why))
		}
	}
	if len(replies) == 0 {
		return invalidRequest(nullID, "%s", why)
	}
	return replyWith(replies)
}

// requestID returns the id of e if e is a request the client waits on.
func requestID(e json.RawMessage) (json.RawMessage, bool) {
	e = bytes.TrimSpace(e)
	if len(e) == 0 || e[0] != '{' {
		return nil, false
	}
	f := members(e)
	id, ok := f["id"]
	if !ok || checkID(id) != nil || f["method"] == nil {
		return nil, false
	}
	return id, true
}

// members returns the members of a JSON object by their exact names, as
// the SDK matches them (encoding/json would also take "ID" for "id").
// obj must be valid JSON.
func members(obj []byte) map[string]json.RawMessage {
	f := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return f
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return f
		}
		if k, ok := tok.(string); ok {
			f[k] = v
		}
	}
	return f
}

func isString(raw json.RawMessage, want string) bool {
	var s string
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil && s == want
}

// maxExactID is the largest integer id a float64 holds exactly. The SDK
// decodes ids through float64: a larger one would come back changed, and
// the client would never match the reply to its request.
const maxExactID = 1 << 53

// exactInteger reports whether a JSON number is an integer (5, or 5.0 as
// JSON Schema counts it) that survives the SDK's float64 unchanged.
func exactInteger(num string) bool {
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		return n >= -maxExactID && n <= maxExactID
	}
	f, err := strconv.ParseFloat(num, 64)
	return err == nil && f == math.Trunc(f) && math.Abs(f) < maxExactID
}

// checkID says what is wrong with a request id, if anything: MCP allows a
// string or an integer.
func checkID(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) { // only from the scan of an oversized line
		return fmt.Errorf(`"id" is not a JSON value; a request id is a string or an integer, e.g. "id": 1`)
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf(`"id" is not a valid JSON string (%v)`, err)
		}
		return nil
	case 'n':
		return fmt.Errorf(`"id" is null; MCP requires a string or an integer id (a notification has no "id" at all)`)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if !exactInteger(string(raw)) {
			return fmt.Errorf(`"id" is %s, not an integer the server can answer exactly (at most 2^53 in size); a request id is a string or an integer, e.g. "id": 1`, raw)
		}
		return nil
	}
	return fmt.Errorf(`"id" is %s; a request id is a string or an integer, e.g. "id": 1`, jsonValueKind(raw))
}

// jsonValueKind names the kind of a JSON value, for messages.
func jsonValueKind(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// oversizedLine scans a line over the limit as it streams past, keeping
// none of it, for the two things its answer needs: the request's id, so
// the client's call fails at once with the reason instead of timing out,
// and whether it is a notification, which gets no answer. It follows the
// top level of a JSON object only as far as strings, nesting and member
// names; the line is not checked further, since nothing of it is used.
type oversizedLine struct {
	limit int
	size  int64 // bytes in the line, without its newline

	depth     int  // of objects and arrays; the members sought are at 1
	started   bool // the opening '{' was seen
	notObject bool // the line is no JSON object: nothing to find
	inString  bool
	escaped   bool
	wantKey   bool   // at depth 1, the next string is a member's name
	inKey     bool   // reading a member's name
	key       []byte // the member name read last, if short
	keyLong   bool   // it was not: no member sought
	member    string // the member whose value is being read at depth 1

	hasID, hasMethod bool
	id               []byte // the raw value of "id", if short
	idTooLong        bool
}

// maxScannedID bounds the id kept from an oversized line: a longer one is
// no id a client would use.
const maxScannedID = 256

func (s *oversizedLine) scan(p []byte) {
	for _, c := range p {
		if c == '\n' {
			continue
		}
		s.size++
		if !s.notObject {
			s.step(c)
		}
	}
}

func (s *oversizedLine) step(c byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
			if s.inKey {
				s.inKey = false
				return
			}
		}
		s.record(c)
		return
	}
	switch c {
	case ' ', '\t', '\r':
		return
	}
	if !s.started {
		s.started, s.notObject = true, c != '{'
		s.depth, s.wantKey = 1, true
		return
	}
	switch c {
	case '"':
		s.inString = true
		if s.depth == 1 && s.wantKey {
			s.wantKey, s.inKey, s.key, s.keyLong = false, true, s.key[:0], false
			return
		}
	case ':':
		if s.depth == 1 {
			s.member = string(s.key)
			if s.keyLong {
				s.member = ""
			}
			switch s.member {
			case "id":
				s.hasID, s.id, s.idTooLong = true, s.id[:0], false
			case "method":
				s.hasMethod = true
			}
			return
		}
	case ',':
		if s.depth == 1 {
			s.wantKey, s.member = true, ""
			return
		}
	case '{', '[':
		s.depth++
	case '}', ']':
		s.depth--
		if s.depth <= 0 { // the object ended; what follows is no member
			s.notObject = true
			return
		}
	}
	s.record(c)
}

// record keeps c if it belongs to the name or the id being read.
func (s *oversizedLine) record(c byte) {
	switch {
	case s.inKey:
		if len(s.key) < len("method") {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
	case s.member == "id":
		if len(s.id) < maxScannedID {
			s.id = append(s.id, c)
		} else {
			s.idTooLong = true
		}
	}
}

// verdict answers the line: with its id when it is a request that has a
// usable one, not at all when it is a notification.
func (s *oversizedLine) verdict() verdict {
	why := fmt.Sprintf("the line is %d bytes, over the limit of %s for one message, and was not read; send a smaller request", s.size, sizeName(s.limit))
	switch {
	case s.hasMethod && !s.hasID:
		return verdict{dropped: "dropped a notification: " + why}
	case s.hasMethod && !s.idTooLong && checkID(s.id) == nil:
		return invalidRequest(json.RawMessage(bytes.Clone(s.id)), "%s", why)
	}
	return invalidRequest(nullID, "%s", why)
}

// sizeName writes a byte count for a person: "16 MiB", or "1000 bytes".
func sizeName(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
