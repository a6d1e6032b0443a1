package store

import (
	"context"
	"crypto/sha256"
	"testing"

	"cchub/workspace"
)

// The code graph's stamps: saved, replaced, read back by a second process
// opening the file (every field of the Identity, an inode and a device
// past int64's range too), forgotten.
func TestGraphFilesSaveReadForget(t *testing.T) {
	ctx := context.Background()
	root := openRoot(t, "")
	s := openStore(t, root)
	a := GraphFile{Path: "a.go", GraphStamp: GraphStamp{SHA256: sha256.Sum256([]byte("a")), Variant: "go",
		Identity: workspace.Identity{Size: 1, MTime: 10, CTime: 11, Inode: 1<<63 + 5, Dev: ^uint64(0)}, Format: 7, Defs: 2, Calls: 3}}
	b := GraphFile{Path: "b/test_b.py", GraphStamp: GraphStamp{SHA256: sha256.Sum256([]byte("b")), Variant: "python/test",
		Identity: workspace.Identity{Size: 2, Inode: 3, Dev: 4}, Format: 7}}
	if err := s.SaveGraph(ctx, []GraphFile{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	a2 := a
	a2.MTime, a2.SHA256 = 20, sha256.Sum256([]byte("a2"))
	if err := s.SaveGraph(ctx, []GraphFile{a2}, nil); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, root)
	st, err := s2.GraphStamps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 || st["a.go"] != a2.GraphStamp || st["b/test_b.py"] != b.GraphStamp {
		t.Fatalf("stamps = %+v", st)
	}
	if st["b/test_b.py"].Key() != (ExtractKey{SHA256: b.SHA256, Variant: "python/test", Format: 7}) {
		t.Fatalf("key = %+v", st["b/test_b.py"].Key())
	}
	if err := s2.SaveGraph(ctx, nil, []string{"a.go"}); err != nil {
		t.Fatal(err)
	}
	st, _ = s.GraphStamps(ctx)
	if len(st) != 1 {
		t.Fatalf("after forgetting a.go: %+v", st)
	}
}
