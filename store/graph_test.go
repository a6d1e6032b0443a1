package store

import (
	"context"
	"crypto/sha256"
	"testing"
)

// The code graph's rows: saved, stamped again without losing data, read
// back by path, forgotten; and kept by a second process opening the file.
func TestGraphFilesSaveStampReadForget(t *testing.T) {
	ctx := context.Background()
	root := openRoot(t, "")
	s := openStore(t, root)
	a := GraphFile{Path: "a.go", GraphStamp: GraphStamp{SHA256: sha256.Sum256([]byte("a")), Size: 1, MTime: 10, Format: 7, Defs: 2, Calls: 3}, Data: []byte("data-a")}
	b := GraphFile{Path: "b/b.py", GraphStamp: GraphStamp{SHA256: sha256.Sum256([]byte("b")), Size: 2, MTime: 0, Format: 7}, Data: []byte{}}
	if err := s.SaveGraph(ctx, []GraphFile{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	// A stamp-only put: new mtime, same content, data kept.
	a2 := a
	a2.MTime, a2.Data = 20, nil
	if err := s.SaveGraph(ctx, []GraphFile{a2}, nil); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, root) // as another process would
	st, err := s2.GraphStamps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st["a.go"].MTime != 20 || st["a.go"].SHA256 != a.SHA256 || st["a.go"].Defs != 2 || st["a.go"].Calls != 3 || st["b/b.py"].Format != 7 {
		t.Fatalf("stamps = %+v", st)
	}
	got := map[string]string{}
	err = s2.GraphData(ctx, map[string]bool{"a.go": true}, func(p string, gs GraphStamp, data []byte) error {
		got[p] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["a.go"] != "data-a" {
		t.Fatalf("data = %v, want only a.go's, kept through the stamp-only put", got)
	}
	if err := s2.SaveGraph(ctx, nil, []string{"a.go"}); err != nil {
		t.Fatal(err)
	}
	st, _ = s.GraphStamps(ctx)
	if _, ok := st["a.go"]; ok || len(st) != 1 {
		t.Fatalf("after forgetting a.go: %+v", st)
	}
}
