// Package repo is checked by testify suites.
package repo

import "strings"

// Repo is a repository.
type Repo struct{ branches []string }

// Branch adds a branch.
func (r *Repo) Branch(name string) {
	r.branches = append(r.branches, strings.TrimSpace(name))
}

// Branches are its branches.
func (r *Repo) Branches() []string {
	return r.branches
}

// Head is the default branch's name.
func Head() string {
	return "main"
}
