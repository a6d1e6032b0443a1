package sharedhub

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// dialEnv, when set, makes the test binary a client that says hello to
// the socket it names and prints what came back (TestAnotherUserIsRefused).
const dialEnv = "CCHUB_TEST_DIAL_AS_CHILD"

// unusedHandler is a Handler no refused connection may reach.
type unusedHandler struct{ t *testing.T }

func (h unusedHandler) Open(context.Context, Hello) (Session, error) {
	h.t.Error("a refused connection opened a session")
	return nil, fmt.Errorf("refused")
}
func (h unusedHandler) Status() []Workspace { return nil }
func (h unusedHandler) OpenCLI(Hello) (func(context.Context, io.Writer, io.Writer) int, error) {
	h.t.Error("a refused connection opened a command")
	return nil, fmt.Errorf("refused")
}

// A hub whose socket another user can reach (its directory and socket
// opened to everyone, which cchub never does) still serves no one but
// its own user: the other end's uid is checked, and the connection is
// closed unanswered.
func TestAnotherUserIsRefused(t *testing.T) {
	if sock := os.Getenv(dialEnv); sock != "" {
		c, err := net.Dial("unix", sock)
		if err != nil {
			fmt.Println("dial:", err)
			return
		}
		defer c.Close()
		fmt.Fprintln(c, `{"op":"status"}`)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		fmt.Printf("answer: %q (%v)\n", line, err)
		return
	}
	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root (CI runs as root)")
	}
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	var warned []string
	h, err := Listen(dir, "0123456789abcdef", time.Minute, unusedHandler{t}, func(msg string) {
		mu.Lock()
		warned = append(warned, msg)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	sock := hubFiles(dir, "0123456789abcdef").socket
	for _, p := range []struct {
		name string
		mode os.FileMode
	}{{dir, 0o755}, {sock, 0o666}} {
		if err := os.Chmod(p.name, p.mode); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- h.Run(ctx) }() // owned: waited for below
	defer func() {
		cancel()
		<-ran
	}()

	// The child is this test binary, copied where user nobody can run it.
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(dir, "child.test")
	if err := os.WriteFile(child, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(child, "-test.run=^TestAnotherUserIsRefused$", "-test.count=1")
	cmd.Env = []string{dialEnv + "=" + sock}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	// Closed unanswered: an end of file, or a reset when the hub closed
	// with the hello unread.
	if !strings.Contains(string(out), `answer: "" (EOF)`) && !(strings.Contains(string(out), `answer: "" (`) && strings.Contains(string(out), "connection reset by peer")) {
		t.Fatalf("another user's connection was answered:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 1 || !strings.Contains(warned[0], "refused a connection: the other end of the socket is uid 65534") {
		t.Errorf("the hub's note of the refusal: %q", warned)
	}
}
