package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The id is made once, kept private, and the same for every later call.
func TestIDIsPrivateAndStable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conf")
	t.Setenv(EnvDir, dir)
	a, err := ID()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ID()
	if err != nil || a != b || !isID(a) {
		t.Fatalf("ID %q then %q, %v", a, b, err)
	}
	st, err := os.Stat(filepath.Join(dir, "id"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("id file: %v %v", st.Mode(), err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode())
	}
	os.WriteFile(filepath.Join(dir, "id"), []byte("not an id\n"), 0o600)
	if _, err := ID(); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a bad id file: %v", err)
	}
}

// Trust is for one path and one content: another content, another path,
// a revoke, each leave the workspace untrusted.
func TestGrantIsForExactContent(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	cfg := []byte(`{"servers": [{"name": "gopls", "command": "/bin/true"}]}`)
	if ok, err := Trusted("/w/a", cfg); ok || err != nil {
		t.Fatalf("trusted before any grant: %v %v", ok, err)
	}
	if err := Grant("/w/a", cfg, []string{"language server gopls: /bin/true"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		root string
		cfg  []byte
		want bool
	}{
		{"/w/a", cfg, true},
		{"/w/a", append(cfg, ' '), false},
		{"/w/a", nil, false},
		{"/w/b", cfg, false},
	} {
		if ok, err := Trusted(c.root, c.cfg); ok != c.want || err != nil {
			t.Errorf("Trusted(%s, %q) = %v, %v; want %v", c.root, c.cfg, ok, err, c.want)
		}
	}
	// No file trusted: a file written later is not.
	Grant("/w/c", nil, nil)
	if ok, _ := Trusted("/w/c", nil); !ok {
		t.Error("trusted without a file: not trusted")
	}
	if ok, _ := Trusted("/w/c", []byte("{}")); ok {
		t.Error("a file written after trusting none is trusted")
	}
	es, err := List()
	if err != nil || len(es) != 2 || es[0].Root != "/w/a" || es[0].Runs[0] != "language server gopls: /bin/true" {
		t.Fatalf("List: %+v %v", es, err)
	}
	if was, err := Revoke("/w/a"); !was || err != nil {
		t.Fatalf("Revoke: %v %v", was, err)
	}
	if ok, _ := Trusted("/w/a", cfg); ok {
		t.Error("trusted after revoke")
	}
	if was, _ := Revoke("/w/a"); was {
		t.Error("revoked twice")
	}
}

// A record others may write is no record: it is refused, not believed.
func TestRecordsOthersMayWriteAreRefused(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if err := Grant("/w/a", nil, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, fileName)
	os.Chmod(p, 0o666)
	if ok, err := Trusted("/w/a", nil); ok || err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("a world-writable record: %v %v", ok, err)
	}
	os.Chmod(p, 0o600)
	os.Remove(p)
	os.Symlink(filepath.Join(dir, "elsewhere"), p)
	os.WriteFile(filepath.Join(dir, "elsewhere"), []byte(`[{"root": "/w/a", "sha256": "absent"}]`), 0o600)
	if ok, err := Trusted("/w/a", nil); ok || err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symlinked record: %v %v", ok, err)
	}
}
