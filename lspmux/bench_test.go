package lspmux

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"cchub/framing"
	"cchub/workspace"
)

// The cost of the hub's wait for diagnostics, against gopls's own time to
// publish them settled, for the same change in the same run: a type error
// written to one file, then its fix, over and over.
//
// bare is a minimal client: gopls with the hub's settings, told of the
// change, and every publish timestamped; "settled" is the last publish
// the change caused (seen in hindsight, after a second of silence). hub
// is Mux.AfterWrite, which must know when to stop without hindsight.
//
//	go test -run '^$' -bench EditDiagnostics -benchtime 10x ./lspmux/
func BenchmarkEditDiagnostics(b *testing.B) {
	for _, ws := range benchWorkspaces(b) {
		b.Run(ws.name+"/bare", func(b *testing.B) { benchBare(b, ws) })
		b.Run(ws.name+"/hub", func(b *testing.B) { benchHub(b, ws) })
	}
}

type benchWS struct {
	name, dir, file string // file: the one edited, relative
	clean, broken   string
}

// benchWorkspaces are the bundled Go workspace, and this repository's
// own module (tens of packages, real dependencies) copied as a large
// real module.
func benchWorkspaces(b *testing.B) []benchWS {
	small := filepath.Join(b.TempDir(), "small")
	if err := os.CopyFS(small, os.DirFS(filepath.Join("..", "testdata", "workspaces", "go"))); err != nil {
		b.Fatal(err)
	}
	large := filepath.Join(b.TempDir(), "large")
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", p)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(large, rel)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	out := []benchWS{{name: "testdata-go", dir: small, file: "pricing/pricing.go"}, {name: "cchub-module", dir: large, file: "workspace/files.go"}}
	for i := range out {
		data, err := os.ReadFile(filepath.Join(out[i].dir, out[i].file))
		if err != nil {
			b.Fatal(err)
		}
		out[i].clean = string(data)
		out[i].broken = string(data) + "\nvar benchBroken int = \"not an int\"\n"
	}
	return out
}

func benchHub(b *testing.B, ws benchWS) {
	root, err := workspace.Open(ws.dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	gopls := goplsPath(b)
	m, err := New(root, Options{LookPath: func(string) (string, error) { return gopls, nil }, Timeout: 60 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	start := time.Now()
	if _, err := m.AfterWrite(ctx, []File{{Path: ws.file, Data: []byte(ws.clean)}}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	b.ResetTimer()
	for i := range b.N {
		text := ws.broken
		if i%2 == 1 {
			text = ws.clean
		}
		rep, err := m.AfterWrite(ctx, []File{{Path: ws.file, Data: []byte(text)}})
		if err != nil {
			b.Fatal(err)
		}
		if got := len(rep.Files[ws.file]) > 0; got != (i%2 == 0) || len(rep.Notes) > 0 {
			b.Fatalf("change %d: %+v", i, rep)
		}
	}
	b.StopTimer()
	// The first request's cost, gopls started and loaded; memory with
	// one server running.
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(rssOf(b, m)>>20), "gopls-MB")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse>>20), "hub-heap-MB")
}

// rssOf is the resident memory of the Mux's one server.
func rssOf(b *testing.B, m *Mux) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.servers {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.proc.Pid()), "status"))
		if err != nil {
			return 0
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func benchBare(b *testing.B, ws benchWS) {
	gopls := goplsPath(b)
	cmd := exec.Command(gopls)
	cmd.Dir = ws.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	conn := jsonrpc2.NewConn(framing.NewStream(framing.Duplex(stdout, stdin), framing.Options{}))
	defer conn.Close()
	file := uri.File(filepath.Join(ws.dir, filepath.FromSlash(ws.file)))
	var mu sync.Mutex
	var last time.Time // the last publish for the file
	var count int      // its diagnostics
	published := make(chan struct{}, 1000)
	conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p struct {
				URI         uri.URI           `json:"uri"`
				Diagnostics []json.RawMessage `json:"diagnostics"`
			}
			if json.Unmarshal(req.Params(), &p) == nil && p.URI == file {
				mu.Lock()
				last, count = time.Now(), len(p.Diagnostics)
				mu.Unlock()
				published <- struct{}{}
			}
		}
		return reply(ctx, nil, nil)
	})
	ctx := context.Background()
	var res json.RawMessage
	if _, err := conn.Call(ctx, "initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": uri.File(ws.dir), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"diagnosticsDelay": "0s"},
	}, &res); err != nil {
		b.Fatal(err)
	}
	conn.Notify(ctx, "initialized", map[string]any{})
	conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": file, "languageId": "go", "version": 1, "text": ws.clean}})
	// Settled in hindsight: the last publish before a second of silence.
	settle := func() time.Time {
		for {
			select {
			case <-published:
			case <-time.After(time.Second):
				mu.Lock()
				defer mu.Unlock()
				return last
			}
		}
	}
	// A large module loads for longer than a second of silence: the
	// opened file's first publish says it is loaded.
	select {
	case <-published:
	case <-time.After(2 * time.Minute):
		b.Fatal("gopls published nothing for the opened file in 2 minutes")
	}
	settle()
	var total time.Duration
	b.ResetTimer()
	b.StopTimer()
	for i := range b.N {
		text := ws.broken
		if i%2 == 1 {
			text = ws.clean
		}
		start := time.Now()
		conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": file, "version": i + 2},
			"contentChanges": []map[string]any{{"text": text}},
		})
		conn.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": file}})
		end := settle()
		mu.Lock()
		n := count
		mu.Unlock()
		if (n > 0) != (i%2 == 0) {
			b.Fatalf("change %d: %d diagnostics", i, n)
		}
		total += end.Sub(start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
}
