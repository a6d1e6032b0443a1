package dapsession

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-dap"

	"cchub/framing"
)

// The time from launch to the first breakpoint stop and of one step,
// through a Session, against a minimal client driving `dlv dap` directly
// in the same run; and the time from the end of a session's time limit
// until its last process is gone.
//
//	go test -run '^$' -bench Dlv -benchtime 5x ./dapsession/
func BenchmarkDlvLaunchToBreakpoint(b *testing.B) {
	dlv := dlvPath(b)
	ws := goShop(b)
	main := filepath.Join(ws, "main.go")
	b.Run("bare", func(b *testing.B) {
		var launch, step time.Duration
		for b.Loop() {
			l, s := bareDlv(b, dlv, ws, main)
			launch += l
			step += s
		}
		b.ReportMetric(float64(launch.Milliseconds())/float64(b.N), "launch-ms")
		b.ReportMetric(float64(step.Microseconds())/float64(b.N)/1000, "step-ms")
	})
	b.Run("session", func(b *testing.B) {
		var launch, step time.Duration
		for b.Loop() {
			start := time.Now()
			s, stop, err := Launch(context.Background(), goAdapter(), dlv, ws, Options{Program: ws, Breakpoints: []Breakpoint{{Path: main, Line: 20}}, TTL: time.Minute})
			if err != nil || stop.Line != 20 {
				b.Fatal(err, stop)
			}
			launch += time.Since(start)
			start = time.Now()
			if st, err := s.Step(context.Background(), "next"); err != nil || st.Line != 21 {
				b.Fatal(err, st)
			}
			step += time.Since(start)
			s.End("done")
		}
		b.ReportMetric(float64(launch.Milliseconds())/float64(b.N), "launch-ms")
		b.ReportMetric(float64(step.Microseconds())/float64(b.N)/1000, "step-ms")
	})
}

// bareDlv launches main.go under dlv dap with a breakpoint at line 20 and
// steps once, as directly as DAP allows, and returns both times.
func bareDlv(b *testing.B, dlv, ws, main string) (launch, step time.Duration) {
	start := time.Now()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(dlv, "dap", "--client-addr="+ln.Addr().String())
	cmd.Dir = ws
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	nc, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	c := framing.NewConn(nc, framing.Options{})
	defer c.Close()
	seq := 0
	send := func(command string, args any) {
		seq++
		body, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
		if err := c.WriteFrame(context.Background(), body); err != nil {
			b.Fatal(err)
		}
	}
	until := func(done func(dap.Message) bool) {
		for {
			body, err := c.ReadFrame(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if m, err := dap.DecodeProtocolMessage(body); err == nil && done(m) {
				return
			}
		}
	}
	send("initialize", map[string]any{"adapterID": "go", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path"})
	send("launch", map[string]any{"mode": "debug", "program": ws, "output": filepath.Join(b.TempDir(), "bin")})
	until(func(m dap.Message) bool { _, ok := m.(*dap.InitializedEvent); return ok })
	send("setBreakpoints", map[string]any{"source": map[string]any{"path": main}, "breakpoints": []map[string]any{{"line": 20}}})
	send("configurationDone", map[string]any{})
	thread := 0
	until(func(m dap.Message) bool {
		if e, ok := m.(*dap.StoppedEvent); ok {
			thread = e.Body.ThreadId
			return true
		}
		return false
	})
	send("stackTrace", map[string]any{"threadId": thread, "levels": 1})
	until(func(m dap.Message) bool { _, ok := m.(*dap.StackTraceResponse); return ok })
	launch = time.Since(start)
	start = time.Now()
	send("next", map[string]any{"threadId": thread})
	until(func(m dap.Message) bool { _, ok := m.(*dap.StoppedEvent); return ok })
	send("stackTrace", map[string]any{"threadId": thread, "levels": 1})
	until(func(m dap.Message) bool { _, ok := m.(*dap.StackTraceResponse); return ok })
	return launch, time.Since(start)
}

// BenchmarkTTLCleanup is the time from a session's time limit running out
// until none of its processes is left.
func BenchmarkTTLCleanup(b *testing.B) {
	dlv := dlvPath(b)
	ws := goShop(b)
	main := filepath.Join(ws, "main.go")
	var total time.Duration
	for b.Loop() {
		s, _, err := Launch(context.Background(), goAdapter(), dlv, ws, Options{Program: ws, Breakpoints: []Breakpoint{{Path: main, Line: 20}}, TTL: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		s.mu.Lock()
		pids := []int{s.proc.proc.Pid(), s.proc.pid, s.pid}
		s.mu.Unlock()
		start := time.Now()
		s.End("its time limit ran out")
		for _, p := range pids {
			for p > 0 && syscall.Kill(p, 0) == nil {
				if stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat")); len(stat) == 0 || isZombie(string(stat)) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cleanup-ms")
}

func isZombie(stat string) bool {
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] == 'Z'
		}
	}
	return false
}
