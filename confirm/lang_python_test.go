package confirm

import (
	"testing"

	"cchub/codegraph"
)

func TestPyBases(t *testing.T) {
	text := "import abc\n\n@decorate\nclass Név(base.Mixin, Generic[T],\n          metaclass=abc.ABCMeta, *extra):\n    pass\n\nclass Plain:\n    pass\n"
	got := pyBases([]byte(text), &codegraph.Def{Name: "Név", Kind: "class", Start: 3, End: 6})
	want := []pyBase{{name: "Mixin", line: 4, col: 16}, {name: "Generic", line: 4, col: 23}}
	if len(got) != len(want) {
		t.Fatalf("bases %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("base %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := pyBases([]byte(text), &codegraph.Def{Name: "Plain", Kind: "class", Start: 8, End: 9}); len(got) != 0 {
		t.Errorf("a class without bases has %+v", got)
	}
}
