package dapsession

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"cchub/lang"
	"cchub/proc"
)

// Adapter says how to run one debug adapter.
type Adapter struct {
	Name     string   // in messages
	Language string   // what it debugs: go, python, c
	Command  string   // the program
	Args     []string // its arguments
	// DialsBack: the adapter connects to an address cchub listens on
	// (dlv dap --client-addr); otherwise it speaks over stdio.
	DialsBack bool
	Install   string // how to get it, for the message when it is missing
}

// Builtin are the adapters cchub knows.
func Builtin() []Adapter {
	return []Adapter{
		{Name: "dlv", Language: lang.Go, Command: "dlv", Args: []string{"dap"}, DialsBack: true,
			Install: "go install github.com/go-delve/delve/cmd/dlv@v1.27.2 (it lands in $(go env GOPATH)/bin: put that on PATH, or beside cchub)"},
		{Name: "debugpy", Language: lang.Python, Command: "python3", Args: []string{"-m", "debugpy.adapter"},
			Install: "apt-get install python3-debugpy"},
		{Name: "lldb-dap", Language: lang.C, Command: "lldb-dap",
			Install: "apt-get install lldb"},
	}
}

// ErrNoAdapter is wrapped when no adapter debugs a language, or its
// program is missing.
var ErrNoAdapter = errors.New("no debug adapter")

// started is a running adapter under its supervisor, and the
// connection to it.
type started struct {
	proc *proc.Process   // the supervisor
	gone <-chan struct{} // closed once the adapter and all it started are gone
	pid  int             // the adapter's
	how  string          // how the supervisor holds the session's processes
	ctrl io.WriteCloser  // the supervisor's control pipe
	conn io.ReadWriteCloser
	end  sync.Once
}

// startAdapter runs a in dir under a supervisor and connects to it.
func startAdapter(ctx context.Context, a *Adapter, bin, dir string) (*started, error) {
	args := append([]string(nil), a.Args...)
	var ln net.Listener
	if a.DialsBack {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("dapsession: listen for %s: %w", a.Name, err)
		}
		defer ln.Close()
		args = append(args, "--client-addr="+ln.Addr().String())
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("dapsession: find this program to supervise %s: %w", a.Name, err)
	}
	// Marked with the hub's run directory, the adapter and all it starts
	// are ended by the sweep that follows a hub killed together with the
	// supervisor.
	mark, err := proc.RunDirEnv()
	if err != nil {
		return nil, fmt.Errorf("dapsession: %w", err)
	}
	c := proc.Command(exe, append([]string{bin}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), supervisorEnv+"=1", mark)
	c.OutliveParent = true    // to end the session's processes when the hub is killed
	c.ClosePipesAtExit = true // the conversation ends with the adapter
	var stdin io.WriteCloser
	var stdout io.ReadCloser
	out := proc.NewTail(4096)
	if !a.DialsBack {
		if stdin, err = c.StdinPipe(); err != nil {
			return nil, err
		}
		if stdout, err = c.StdoutPipe(); err != nil {
			return nil, err
		}
	} else {
		c.Stdout = out
	}
	c.Stderr = out
	ctrlR, ctrlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		ctrlR.Close()
		ctrlW.Close()
		return nil, err
	}
	defer statusR.Close()
	c.ExtraFiles = []*os.File{ctrlR, statusW}
	// The adapter outlives the launch request: the session ends it.
	p, err := c.Start(context.Background())
	ctrlR.Close()
	statusW.Close()
	if err != nil {
		ctrlW.Close()
		return nil, fmt.Errorf("dapsession: start %s: %w", a.Name, err)
	}
	st := &started{proc: p, gone: p.Done(), ctrl: ctrlW}
	if err := st.readStatus(statusR); err != nil {
		st.kill()
		return nil, fmt.Errorf("dapsession: start %s: %w %s", a.Name, err, strings.TrimSpace(out.String()))
	}
	if !a.DialsBack {
		st.conn = duplex{stdout, stdin}
		return st, nil
	}
	type accepted struct {
		c   net.Conn
		err error
	}
	got := make(chan accepted, 1)
	go func() { // ends with the listener, closed on return
		c, err := ln.Accept()
		got <- accepted{c, err}
	}()
	select {
	case a := <-got:
		if a.err != nil {
			st.kill()
			return nil, a.err
		}
		st.conn = a.c
		return st, nil
	case <-st.gone:
		return nil, fmt.Errorf("dapsession: %s exited before it connected: %s", a.Name, strings.TrimSpace(out.String()))
	case <-time.After(30 * time.Second):
		st.kill()
		return nil, fmt.Errorf("dapsession: %s did not connect within 30 s", a.Name)
	case <-ctx.Done():
		st.kill()
		return nil, ctx.Err()
	}
}

// readStatus reads the supervisor's one line: the adapter's pid and how
// it is held, or why it did not start.
func (st *started) readStatus(r *os.File) error {
	line := make(chan string, 1)
	go func() { // ends at the line, or when r is closed on return
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	var s string
	select {
	case s = <-line:
	case <-time.After(30 * time.Second):
		return errors.New("its supervisor did not start it within 30 s")
	}
	if why, ok := strings.CutPrefix(s, "failed "); ok {
		return errors.New(why)
	}
	rest, ok := strings.CutPrefix(s, "started ")
	pid, how, _ := strings.Cut(rest, " ")
	if st.pid, _ = strconv.Atoi(pid); !ok || st.pid <= 0 {
		return fmt.Errorf("its supervisor said %q", s)
	}
	st.how = how
	return nil
}

// remove has the supervisor remove the file at path (absolute) at the
// end, also if the hub dies.
func (st *started) remove(path string) {
	fmt.Fprintf(st.ctrl, "rm %s\n", path)
}

// kill ends the adapter and all it started: the supervisor is told, and
// kills and reaps them; a supervisor that does not end in time is killed
// with its group (it and the adapter).
func (st *started) kill() {
	st.end.Do(func() { st.ctrl.Close() })
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-st.gone:
	case <-t.C:
		st.proc.Kill()
	}
}

// duplex is an adapter's stdout and stdin as one connection.
type duplex struct {
	io.ReadCloser
	w io.WriteCloser
}

func (d duplex) Write(b []byte) (int, error) { return d.w.Write(b) }
func (d duplex) Close() error {
	err := d.w.Close()
	if e := d.ReadCloser.Close(); err == nil {
		err = e
	}
	return err
}

// FindPython is the python3 that runs debugpy's adapter, found as a
// person's machine has it: the first python3 on PATH that imports debugpy
// (a virtual environment's, or pyenv's, where the program's own packages
// are), else the system's (Debian's python3-debugpy installs it for
// /usr/bin/python3 only). It answers with the interpreter's own path
// (sys.executable), not a pyenv shim's, which would choose its Python by
// the directory it runs in: the workspace (its .python-version) does not
// choose the interpreter, and the one that runs the adapter is the one
// asked here.
func FindPython() (string, error) {
	var tried []string
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		tried = append(tried, p)
		var out strings.Builder
		probe := proc.Command(p, "-c", "import sys, debugpy; sys.stdout.write(sys.executable)")
		probe.Dir = "/" // python -c imports from its directory first: never a workspace's
		probe.Stdout = &out
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = probe.Run(ctx)
		cancel()
		if err != nil {
			continue
		}
		if exe := out.String(); filepath.IsAbs(exe) {
			return exe, nil
		}
		return p, nil
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("%w: python3 was not found", ErrNoAdapter)
	}
	return "", fmt.Errorf("%w: debugpy is not installed for %s; install it: apt-get install python3-debugpy (for /usr/bin/python3)", ErrNoAdapter, strings.Join(tried, " or "))
}
