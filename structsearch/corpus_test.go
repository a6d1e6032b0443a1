package structsearch

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"cchub/workspace"
)

// file is one real source file: its path relative to the corpus
// directory and its bytes.
type file struct {
	rel string
	src []byte
}

// corpus reads every file of lang under dir (recursively), skipping files
// workspace would not hand out as text. It skips the test when dir does not
// exist.
func corpus(tb testing.TB, dir, lang string) []file {
	tb.Helper()
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("corpus %s: %v", dir, err)
	}
	var out []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if l := workspace.LanguageFor(p); l == nil || l.Name != lang {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		src, err := workspace.ReadText(p, rel)
		if err != nil {
			return nil
		}
		out = append(out, file{rel: filepath.ToSlash(rel), src: src})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Skipf("no %s files under %s", lang, dir)
	}
	return out
}
