// Command fakeserver is a fake language server for framing's tests: it
// speaks JSON-RPC over stdin and stdout with deliberately hostile framing,
// the way real servers sometimes do. It prints a banner before its first
// frame, splits frames across several writes with pauses between them,
// writes two frames (and a line of junk) in one write, and names its
// headers in odd cases.
//
// It answers "initialize", "ping" (echoing its params, then notifying
// "fake/pinged"), "fake/big" (a string of params.size bytes) and
// "shutdown"; on the "initialized" notification it sends
// "window/logMessage", and on "exit" it exits. Anything else is "method not
// found". It uses only the standard library and frames by hand, so the tests
// do not check framing against itself.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func main() {
	out := os.Stdout
	// A banner before the first frame, in two writes.
	write(out, []byte("fake server starting\n"))
	write(out, []byte("loading workspace... done\n"))

	in := bufio.NewReader(os.Stdin)
	for {
		body, err := readFrame(in)
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver:", err)
			os.Exit(2)
		}
		var req message
		if err := json.Unmarshal(body, &req); err != nil {
			fmt.Fprintln(os.Stderr, "fakeserver: bad message:", err)
			os.Exit(2)
		}
		switch req.Method {
		case "initialize":
			// One frame, cut in five writes: inside the header name, inside
			// the header, at the blank line, and through the body.
			resp := reply(req, map[string]any{
				"capabilities": map[string]any{"hoverProvider": true},
				"serverInfo":   map[string]any{"name": "fakeserver", "version": "0.1"},
			})
			frame := header("Content-Length", len(resp), true) + string(resp)
			cut := strings.Index(frame, "\r\n\r\n")
			half := cut + 4 + len(resp)/2
			for _, piece := range []string{frame[:10], frame[10:cut], frame[cut : cut+4], frame[cut+4 : half], frame[half:]} {
				write(out, []byte(piece))
				time.Sleep(5 * time.Millisecond)
			}
		case "initialized":
			note := notification("window/logMessage", map[string]any{"type": 3, "message": "fake server ready"})
			write(out, []byte(header("content-length", len(note), false)+string(note)))
		case "ping":
			var params any
			json.Unmarshal(req.Params, &params)
			resp := reply(req, map[string]any{"pong": true, "echo": params})
			note := notification("fake/pinged", map[string]any{"count": 1})
			// A line of junk and two frames, in one write.
			write(out, []byte("fake server: handled ping\n"+
				header("CONTENT-LENGTH", len(resp), false)+string(resp)+
				header("Content-Length", len(note), true)+string(note)))
		case "fake/big":
			var params struct {
				Size int `json:"size"`
			}
			json.Unmarshal(req.Params, &params)
			resp := reply(req, strings.Repeat("x", params.Size))
			frame := []byte(header("Content-Length", len(resp), false) + string(resp))
			for len(frame) > 0 {
				n := min(len(frame), 100_000)
				write(out, frame[:n])
				frame = frame[n:]
			}
		case "shutdown":
			resp := reply(req, nil)
			write(out, []byte(header("Content-Length", len(resp), false)+string(resp)))
		case "exit":
			os.Exit(0)
		default:
			if req.ID == nil {
				continue // an unknown notification needs no answer
			}
			resp, _ := json.Marshal(message{JSONRPC: "2.0", ID: req.ID,
				Error: &rpcError{Code: -32601, Message: "method not found: " + req.Method}})
			write(out, []byte(header("Content-Length", len(resp), false)+string(resp)))
		}
	}
}

func reply(req message, result any) []byte {
	if result == nil {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": nil})
		return b
	}
	b, _ := json.Marshal(message{JSONRPC: "2.0", ID: req.ID, Result: result})
	return b
}

func notification(method string, params any) []byte {
	p, _ := json.Marshal(params)
	b, _ := json.Marshal(message{JSONRPC: "2.0", Method: method, Params: p})
	return b
}

// header writes a frame header with the length header named name, and a
// Content-Type line before it when withType is set.
func header(name string, n int, withType bool) string {
	h := name + ": " + strconv.Itoa(n) + "\r\n"
	if withType {
		h = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + h
	}
	return h + "\r\n"
}

func write(w io.Writer, p []byte) {
	if _, err := w.Write(p); err != nil {
		fmt.Fprintln(os.Stderr, "fakeserver: write:", err)
		os.Exit(2)
	}
}

// readFrame reads one frame the plain way: header lines up to a blank line,
// then Content-Length bytes.
func readFrame(in *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := in.ReadString('\n')
		if err == io.EOF && line == "" && length < 0 {
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("read header: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("bad header line %q", line)
		}
		if strings.EqualFold(name, "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(in, body); err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	return body, nil
}
