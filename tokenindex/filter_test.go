package tokenindex

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// randomText is text of the kinds files hold: code-like words, mixed case,
// punctuation, non-ASCII letters and stray bytes.
func randomText(r *rand.Rand, n int) []byte {
	parts := []string{"func", "Handler", "ERR", "abort", "if", " ", "\n", "\t", "(", ")", "{", "}", "é", "日本", "\xff", "\x00", "_", "x", "Q", "42", "//", "\""}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.Bytes()
}

// flipCase changes the case of some ASCII letters.
func flipCase(r *rand.Rand, b []byte) []byte {
	out := append([]byte(nil), b...)
	for i, c := range out {
		if r.IntN(2) == 0 {
			switch {
			case c >= 'a' && c <= 'z':
				out[i] = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				out[i] = c - 'A' + 'a'
			}
		}
	}
	return out
}

// A filter never says no to a literal its file holds, in any ASCII case.
func TestFilterHoldsEveryLiteralOfItsFile(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	for range 200 {
		src := randomText(r, r.IntN(5000))
		f, err := Decode(Build(src))
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			if len(src) < 3 {
				break
			}
			i := r.IntN(len(src) - 2)
			j := i + 3 + r.IntN(min(20, len(src)-i-2))
			lit := src[i:j]
			if !f.MayContain(lit) || !f.MayContain(flipCase(r, lit)) {
				t.Fatalf("the filter of %q refuses %q, which it holds", src, lit)
			}
		}
	}
}

// A filter refuses most literals its file lacks: names of another file,
// looked for in a real one.
func TestFilterRefusesMostOfWhatItsFileLacks(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("go env GOROOT:", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "strings", "strings.go"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(Build(src))
	if err != nil {
		t.Fatal(err)
	}
	// The trigrams strings.go holds, exactly: a word made of them all
	// passes any trigram index, and is not counted.
	have := map[string]bool{}
	low := bytes.ToLower(src)
	for i := 0; i+3 <= len(low); i++ {
		have[string(low[i:i+3])] = true
	}
	lacked, passed := 0, 0
	for _, w := range bytes.FieldsFunc(other, func(r rune) bool { return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		lw := bytes.ToLower(w)
		all := true
		for i := 0; i+3 <= len(lw); i++ {
			all = all && have[string(lw[i:i+3])]
		}
		if len(w) < 3 || all {
			continue
		}
		lacked++
		if f.MayContain(w) {
			passed++
		}
	}
	t.Logf("strings.go (%d bytes, %d trigrams, filter %d bytes): %d of %d words of server.go with a trigram it lacks let through", len(src), len(have), len(Build(src)), passed, lacked)
	if lacked < 500 || passed*10 > lacked {
		t.Errorf("the filter lets through %d of %d words with a trigram its file lacks; want under 10%%", passed, lacked)
	}
}

// Bytes that are no filter (the shared store's data is input) are
// refused, each with ErrBadFilter.
func TestDecodeRefusesWhatIsNoFilter(t *testing.T) {
	good := Build([]byte("package p"))
	for name, b := range map[string][]byte{
		"empty":          nil,
		"header only":    {Format},
		"another format": append([]byte{Format + 1}, good[1:]...),
		"too small":      append([]byte{Format, minLog - 1}, make([]byte, 4)...),
		"too large":      {Format, maxLog + 1},
		"cut short":      good[:len(good)-1],
		"too long":       append(append([]byte(nil), good...), 0),
	} {
		if _, err := Decode(b); !errors.Is(err, ErrBadFilter) {
			t.Errorf("%s: Decode = %v, want ErrBadFilter", name, err)
		}
	}
	if _, err := Decode(good); err != nil {
		t.Errorf("Decode(Build(...)) = %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Build([]byte("package p\nfunc F() {}\n")), []byte("func"))
	f.Add([]byte{Format, minLog, 0, 0, 0, 0, 0, 0, 0, 0}, []byte("abc"))
	f.Add([]byte{Format, 30}, []byte("xyz"))
	f.Fuzz(func(t *testing.T, b, lit []byte) {
		flt, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrBadFilter) {
				t.Fatalf("Decode error %v does not wrap ErrBadFilter", err)
			}
			return
		}
		flt.MayContain(lit) // must not panic, whatever the bits
	})
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte("package p\nfunc F() {}\n"), 3, 7)
	f.Add([]byte("ÉCOLE école\x00\xff"), 0, 5)
	f.Fuzz(func(t *testing.T, src []byte, i, j int) {
		flt, err := Decode(Build(src))
		if err != nil {
			t.Fatalf("Decode(Build(%q)): %v", src, err)
		}
		if i < 0 || j < i+3 || j > len(src) {
			return
		}
		if !flt.MayContain(src[i:j]) {
			t.Fatalf("the filter of %q refuses %q, which it holds", src, src[i:j])
		}
	})
}
