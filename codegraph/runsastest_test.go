package codegraph

import "testing"

// A Go suite's TestXxx method in a test file counts as a test; a helper
// method, a method in a code file, or another language's does not.
func TestRunsAsTest(t *testing.T) {
	for _, c := range []struct {
		d    Def
		want bool
	}{
		{Def{Name: "TestX", Type: "S", Kind: "method", Path: "p/x_test.go", Language: "go"}, true},
		{Def{Name: "Test", Type: "S", Kind: "method", Path: "p/x_test.go", Language: "go"}, true},
		{Def{Name: "Testify", Type: "S", Kind: "method", Path: "p/x_test.go", Language: "go"}, false},
		{Def{Name: "SetUpTest", Type: "S", Kind: "method", Path: "p/x_test.go", Language: "go"}, false},
		{Def{Name: "TestX", Type: "S", Kind: "method", Path: "p/x.go", Language: "go"}, false},
		{Def{Name: "TestX", Kind: "func", Path: "p/x_test.go", Language: "go", Test: true}, true},
		{Def{Name: "TestX", Type: "S", Kind: "method", Path: "x_test.py", Language: "python"}, false},
	} {
		if got := RunsAsTest(c.d); got != c.want {
			t.Errorf("%+v: %v, want %v", c.d, got, c.want)
		}
	}
}
