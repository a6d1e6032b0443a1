package locate

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"cchub/workspace/wstest"
)

// dfaCorpus is GOROOT/src's text, up to n bytes, as one buffer.
func dfaCorpus(b *testing.B, n int) []byte {
	b.Helper()
	var buf []byte
	filepath.WalkDir(wstest.GoSrc(b), func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(buf) >= n || d.IsDir() || filepath.Ext(p) != ".go" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && bytes.IndexByte(data, 0) < 0 {
			buf = append(buf, data...)
		}
		return nil
	})
	return buf
}

// BenchmarkLineMatcher times the matching of lines alone, with no file
// read: the DFA's loop on a pattern with no literal, and the literal
// scan.
func BenchmarkLineMatcher(b *testing.B) {
	corpus := dfaCorpus(b, 32<<20)
	for _, pat := range []string{`[A-Z]{3}[0-9]{3}`, `\w+_test\b`, `func \(\w+ \*\w+\) Serve`, "ErrAbortHandler"} {
		b.Run(pat, func(b *testing.B) {
			m := mustMatcher(b, pat)
			b.SetBytes(int64(len(corpus)))
			n := 0
			for b.Loop() {
				m.eachLine(corpus, func(start, end int) bool { n++; return true })
			}
			if n == 0 {
				b.Fatal("no match")
			}
		})
	}
}
