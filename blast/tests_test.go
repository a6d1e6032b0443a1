package blast

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// selectOn commits a change on a branch of its own and selects the tests
// of the diff from base, both with the change checked out and with --head
// read from git: the two must agree.
func (r *repo) selectOn(branch string, change func()) *Selection {
	r.t.Helper()
	r.git("checkout", "-q", "-b", branch, "base")
	change()
	r.commit(branch)
	checkedOut := r.run(Options{Base: "base", Tests: true}).Selection
	r.git("checkout", "-q", "base")
	fromGit := r.run(Options{Base: "base", Head: branch, Tests: true}).Selection
	if a, b := selJSON(r.t, checkedOut), selJSON(r.t, fromGit); a != b {
		r.t.Errorf("%s: --head without a checkout selects otherwise:\nchecked out: %s\nfrom git:    %s", branch, a, b)
	}
	return checkedOut
}

func selJSON(t *testing.T, s *Selection) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// commandsOf is the selection's commands, one a line.
func commandsOf(t *testing.T, s *Selection) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteCommands(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestExplore(t *testing.T) {
	r := newRepo(t)
	s := r.selectOn("body", func() {
		r.edit("store/store.go", "t += n", "t += n * 1")
		r.edit("tools/stats.py", "return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)")
	})
	b, _ := json.MarshalIndent(s, "", "  ")
	t.Logf("%s\n%s", b, commandsOf(t, s))
}
