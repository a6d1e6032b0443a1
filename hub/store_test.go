package hub

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cchub/trust"
)

// storeWorkspace is a workspace whose .cchub.json names spec as the
// shared store, trusted or not.
func storeWorkspace(t *testing.T, spec string, trusted bool) string {
	t.Helper()
	dir := t.TempDir()
	cfg := []byte(`{"store": "` + spec + `"}`)
	if err := os.WriteFile(filepath.Join(dir, ".cchub.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if trusted {
		real, _ := filepath.EvalSymlinks(dir)
		if err := trust.Grant(real, cfg, nil); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// refusedURL is a PostgreSQL URL at a loopback port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "postgres://cchub:secret@" + addr + "/cchub?connect_timeout=3"
}

func noticesOf(h *Hub) string {
	h.noticeMu.Lock()
	defer h.noticeMu.Unlock()
	return strings.Join(h.notices, "\n")
}

// A repository cannot choose the database its index goes to: an
// untrusted .cchub.json's store is ignored, and said once, naming the
// way to trust it; no connection is tried.
func TestStoreConfigUntrustedIsIgnored(t *testing.T) {
	url := refusedURL(t)
	h, err := Open(storeWorkspace(t, url, false), Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sh, err := h.Shared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sh.Engine() != "sqlite" {
		t.Fatalf("engine = %s, want the checkout's own sqlite", sh.Engine())
	}
	n := noticesOf(h)
	if !strings.Contains(n, "ignored") || !strings.Contains(n, "cchub trust") || strings.Contains(n, "secret") {
		t.Fatalf("notice = %q; want it ignored, how to trust, and no password", n)
	}
	if strings.Contains(n, "could not") {
		t.Fatalf("notice = %q; an untrusted store must not be tried", n)
	}
}

// A trusted .cchub.json's store is used: here it refuses connections, so
// the checkout's own store serves, and the notice says what happened and
// what to do (never the password). --store wins over the file.
func TestStoreConfigTrustedIsUsedAndFallsBack(t *testing.T) {
	url := refusedURL(t)
	dir := storeWorkspace(t, url, true)
	h, err := Open(dir, Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := h.Shared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := noticesOf(h)
	if sh.Engine() != "sqlite" || n == "" || strings.Contains(n, "secret") || !strings.Contains(n, "127.0.0.1") {
		t.Fatalf("engine %s, notice %q; want the fall back said, naming the server, without the password", sh.Engine(), n)
	}
	// The graph works on the fallback.
	if _, err := h.Index(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h.Close()

	h, err = Open(dir, Options{OneShot: true, Store: "sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if sh, err := h.Shared(context.Background()); err != nil || sh.Engine() != "sqlite" || noticesOf(h) != "" {
		t.Fatalf("--store sqlite: %v, %v, notice %q; want the local store, nothing said", sh, err, noticesOf(h))
	}
}
