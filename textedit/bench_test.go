package textedit

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"cchub/workspace"
)

// bigFile concatenates net/http's Go files (in name order) until the text
// has 10,000 lines.
func bigFile(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(goroot(tb), "src", "net", "http")
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
		if len(lines) >= 10_000 {
			break
		}
	}
	if len(lines) < 10_000 {
		tb.Fatalf("net/http has only %d lines", len(lines))
	}
	return strings.Join(lines[:10_000], "\n") + "\n"
}

// benchBlock is a unique 8-line block near the middle of text and the same
// block with a visible change.
func benchBlock(tb testing.TB, text string) (block, changed string) {
	tb.Helper()
	lines := strings.Split(text, "\n")
	for a := 5000; a < 9000; a++ {
		b := lines[a : a+8]
		if isBlank(b[0]) || isBlank(b[7]) || !strings.HasPrefix(b[3], "\t") {
			continue
		}
		block = strings.Join(b, "\n")
		if strings.Count(text, block) != 1 {
			continue
		}
		c := slices.Clone(b)
		c[3] += " // bench"
		return block, strings.Join(c, "\n")
	}
	tb.Fatal("no unique block")
	return "", ""
}

// edits are the two edits a benchmark alternates between, so the file
// goes back and forth: X to Y, then Y to X.
type benchEdit struct{ name, old1, new1, old2, new2 string }

func benchEdits(block, changed string) []benchEdit {
	spaces := func(s string) string { return strings.ReplaceAll(s, "\t", "    ") }
	slip := func(s string) string { return strings.Replace(s, "err", "er", 1) }
	lines := strings.Split(block, "\n")
	// a misremembered token in a middle line (lines 1-2, not the one
	// changed)
	wrong := func(s string) string {
		ls := strings.Split(s, "\n")
		for k := 1; k <= 2; k++ {
			if f := wordTokens(ls[k]); len(f) > 0 {
				ls[k] = strings.Replace(ls[k], f[0], f[0]+"x", 1)
				return strings.Join(ls, "\n")
			}
		}
		return slip(s)
	}
	_ = lines
	return []benchEdit{
		{"exact", block, changed, changed, block},
		{"near-miss-indent", spaces(block), spaces(changed), spaces(changed), spaces(block)},
		{"near-miss-wrong-line", wrong(block), wrong(changed), wrong(changed), wrong(block)},
	}
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// BenchmarkEditNearMiss: one edit on a 10,000-line file of real Go, exact
// and needing a forgiving layer. "apply" is the matcher and splice in
// memory; "file" is the whole edit tool on disk (read, check, atomic write
// with fsync). median-ns/edit is the median of the per-edit times.
func BenchmarkEditNearMiss(b *testing.B) {
	text := bigFile(b)
	block, changed := benchBlock(b, text)
	for _, e := range benchEdits(block, changed) {
		// Check once that both directions apply as intended.
		mid := apply(b, text, Change{Old: e.old1, New: e.new1})
		if mid != strings.Replace(text, block, changed, 1) || apply(b, mid, Change{Old: e.old2, New: e.new2}) != text {
			b.Fatalf("%s: edit is not the intended one", e.name)
		}
		b.Run("apply/"+e.name, func(b *testing.B) {
			data := []byte(text)
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				old, nw := e.old1, e.new1
				if i%2 == 1 {
					old, nw = e.old2, e.new2
				}
				start := time.Now()
				a, err := Apply(data, "big.go", Change{Old: old, New: nw})
				ds = append(ds, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				data = a.Data
			}
			b.ReportMetric(float64(median(ds).Nanoseconds()), "median-ns/edit")
		})
		b.Run("file/"+e.name, func(b *testing.B) {
			root, err := workspace.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root.Dir(), "big.go"), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			f := NewFiles(root)
			var seen Seen
			var ds []time.Duration
			for i := 0; b.Loop(); i++ {
				old, nw := e.old1, e.new1
				if i%2 == 1 {
					old, nw = e.old2, e.new2
				}
				start := time.Now()
				_, err := f.Edit(b.Context(), "big.go", Change{Old: old, New: nw}, &seen)
				ds = append(ds, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(median(ds).Nanoseconds()), "median-ns/edit")
		})
	}
}

// BenchmarkNearMissCorpus runs the whole corpus per iteration and reports
// its share figures with the time per edit.
func BenchmarkNearMissCorpus(b *testing.B) {
	cases := buildCorpus(b)
	var st corpusStats
	for b.Loop() {
		st = runCorpus(cases)
	}
	in, ref := st.share()
	b.ReportMetric(in, "intended-%")
	b.ReportMetric(float64(st.wrongTotal()), "wrong-place")
	b.ReportMetric(ref, "refused-%")
	b.ReportMetric(float64(len(cases)), "edits")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cases)), "ns/edit")
}

// BenchmarkLargeBlock: a 600-line block of server.go given re-indented
// with spaces and changed on many lines (TestLargeBlocks checks the
// result), and the same block misremembered so that it is not found.
func BenchmarkLargeBlock(b *testing.B) {
	body := readGo(b, "net/http/server.go")
	lines := strings.Split(body, "\n")
	block := strings.Join(lines[1000:1600], "\n")
	changed := strings.ReplaceAll(block, ")\n", ") //x\n")
	data := []byte(body)
	b.Run("reindented", func(b *testing.B) {
		ch := Change{Old: strings.ReplaceAll(block, "\t", "    "), New: strings.ReplaceAll(changed, "\t", "    ")}
		for b.Loop() {
			if _, err := Apply(data, "server.go", ch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("not-found", func(b *testing.B) {
		ch := Change{Old: strings.Replace(block, "err", "er", 1), New: "x"}
		for b.Loop() {
			if _, err := Apply(data, "server.go", ch); err == nil {
				b.Fatal("a misremembered block was applied")
			}
		}
	})
}
