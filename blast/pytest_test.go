package blast

import (
	"slices"
	"testing"
)

// TestSelectPythonMixinsAndImports: a test method of a mixin runs as its
// subclasses' tests, so their file is selected whole; a test file that
// imports the changed module, even through a package, is selected
// (cautious) although no call the graph follows reaches it.
func TestSelectPythonMixinsAndImports(t *testing.T) {
	r := newTestsRepo(t)
	r.write(map[string]string{
		"codec/__init__.py": "from codec.decoder import decode\n",
		"codec/decoder.py":  "def decode(s):\n    return s\n",
		"tests/__init__.py": "",
		"tests/base.py":     "import codec\n\nclass PyTest:\n    loads = staticmethod(codec.decode)\n",
		"tests/test_decode.py": "import unittest\nfrom codec.decoder import decode\nfrom tests.base import PyTest\n\n" +
			"class TestDecode:\n    def test_direct(self):\n        decode('x')\n\n    def test_through_attribute(self):\n        self.loads('x')\n\n" +
			"class TestPyDecode(TestDecode, PyTest, unittest.TestCase):\n    pass\n",
		"tests/test_other.py": "import unittest\nfrom tests.base import PyTest\n\nclass TestOther(PyTest, unittest.TestCase):\n    def test_loads(self):\n        self.loads('y')\n",
		// A test that runs the module in a subprocess imports nothing of it;
		// its package does.
		"tests/cli/__init__.py": "import codec\n",
		"tests/cli/test_cli.py": "import subprocess\n\ndef test_cli():\n    subprocess.run(['python', '-m', 'codec'])\n",
	})
	r.commit("mixins")
	r.git("tag", "-f", "base")
	s := r.selectOn("mixins", func() { r.edit("codec/decoder.py", "return s", "return s + ''") })
	var sure, cautious []string
	for _, g := range s.Groups {
		if g.Cautious {
			cautious = append(cautious, g.Command)
		} else {
			sure = append(sure, g.Command)
		}
	}
	if !slices.Contains(sure, "python -m pytest 'tests/test_decode.py'") {
		t.Errorf("the mixin's test reached by a call: want its subclass's file whole and sure; sure %q\n%s", sure, selJSON(t, s))
	}
	cli := false
	for _, g := range s.Groups {
		cli = cli || g.Cautious && g.Whole && g.Dir == "tests/cli"
	}
	if !cli {
		t.Errorf("a test package whose __init__ imports the changed module: want its directory cautious and whole\n%s", selJSON(t, s))
	}
	if !slices.Contains(cautious, "python -m pytest 'tests/test_other.py'") {
		t.Errorf("a test file importing the changed module through tests.base: want it cautious and whole; cautious %q\n%s", cautious, selJSON(t, s))
	}
}
