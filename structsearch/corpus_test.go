package structsearch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"cchub/syntax"
	"cchub/workspace"
	"cchub/workspace/wstest"
)

// file is one real source file: its path relative to the corpus
// directory and its bytes.
type file struct {
	rel string
	src []byte
}

// corpusHow says where the corpora come from.
const corpusHow = "GOROOT/src comes with Go; Python's standard library with python3 (apt-get install python3)"

// corpus reads every file of lang under dir (recursively), skipping files
// workspace would not hand out as text. A missing dir, or one without such
// files, is a missing peer.
func corpus(tb testing.TB, dir, language string) []file {
	tb.Helper()
	_, err := os.Stat(dir)
	wstest.RequirePeer(tb, fmt.Sprintf("corpus directory: %v; %s", err, corpusHow), err == nil)
	var out []file
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if l := syntax.LanguageFor(p); l == nil || l.Name != language {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		src, err := os.ReadFile(p)
		if err != nil || workspace.IsBinary(src) || !utf8.Valid(src) {
			return nil
		}
		out = append(out, file{rel: filepath.ToSlash(rel), src: src})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	wstest.RequirePeer(tb, fmt.Sprintf("%s files under %s; %s", language, dir, corpusHow), len(out) > 0)
	return out
}
