package syntax

import (
	"os/exec"
	"strings"
	"testing"
)

// The packages that need only files must not link tree-sitter: that is why
// this package is not part of workspace. A package below that imports
// syntax (or go-tree-sitter) for a language name would bring every grammar
// back into them.
func TestPackagesThatNeedNoTreeLinkNoTreeSitter(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list dependencies with")
	}
	ground := []string{"workspace", "store", "lspmux", "dapsession", "locate", "anchor", "ledger", "framing"}
	args := []string{"list", "-deps"}
	for _, p := range ground {
		args = append(args, "cchub/"+p)
	}
	out, err := exec.Command(goTool, args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "cchub/syntax" || strings.Contains(dep, "go-tree-sitter") {
			t.Errorf("%s is linked by one of %s", dep, strings.Join(ground, ", "))
		}
	}
}
