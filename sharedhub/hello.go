package sharedhub

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Hello is the one line a front sends before anything else: what it asks
// of the hub.
type Hello struct {
	// Op is "mcp" (an MCP session follows, on Root with Args) or
	// "status" (the hub answers its Status and closes).
	Op string `json:"op"`
	// Root is the workspace root, absolute.
	Root string `json:"root,omitempty"`
	// Args are the command-line flags that shape the workspace's hub
	// (--approval, --store …), as `cchub mcp` was given them: sessions
	// with other flags get a hub.Hub of their own on the same root.
	Args []string `json:"args,omitempty"`
	// Argv is, for "cli", the command line of a one-shot command
	// (without the program's name), run in the hub on Root's warm state.
	Argv []string `json:"argv,omitempty"`
}

// frame is one piece of a one-shot command's output, or its end.
type frame struct {
	Out  string `json:"o,omitempty"`
	Err  string `json:"e,omitempty"`
	Exit *int   `json:"exit,omitempty"`
}

// reply is the hub's one line in answer to a Hello: Error says why it
// refused; for "status", Status is the answer.
type reply struct {
	Error  string  `json:"error,omitempty"`
	Status *Status `json:"status,omitempty"`
}

// Ops of a Hello.
const (
	OpMCP    = "mcp"
	OpStatus = "status"
	OpCLI    = "cli"
)

// maxHello bounds a hello or reply line.
const maxHello = 1 << 20

// helloWait bounds how long either side waits for the other's line: the
// hub's answer may open a workspace (its state, an interrupted commit to
// finish).
const helloWait = time.Minute

// writeLine sends v as one JSON line.
func writeLine(c net.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.SetWriteDeadline(time.Now().Add(helloWait))
	defer c.SetWriteDeadline(time.Time{})
	_, err = c.Write(append(b, '\n'))
	return err
}

// readLine reads one JSON line of at most maxHello bytes into v.
func readLine(c net.Conn, r *bufio.Reader, v any) error {
	c.SetReadDeadline(time.Now().Add(helloWait))
	defer c.SetReadDeadline(time.Time{})
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHello {
			return fmt.Errorf("a line over %d bytes", maxHello)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		return json.Unmarshal(line, v)
	}
}
