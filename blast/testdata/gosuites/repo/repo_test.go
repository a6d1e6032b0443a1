package repo

import (
	"testing"

	"github.com/stretchr/testify/suite"
)

type RepoSuite struct {
	suite.Suite
	r *Repo
}

func (s *RepoSuite) SetupTest() { s.r = &Repo{} }

func (s *RepoSuite) TestBranch() {
	s.r.Branch(" dev ")
	s.Equal([]string{"dev"}, s.r.Branches())
}

func (s *RepoSuite) TestEmpty() {
	s.Empty(s.r.Branches())
}

func TestRepoSuite(t *testing.T) { suite.Run(t, new(RepoSuite)) }

type HeadSuite struct{ suite.Suite }

func (s *HeadSuite) TestHead() { s.Equal("main", Head()) }

func TestHeadSuite(t *testing.T) { suite.Run(t, &HeadSuite{}) }

func TestPlain(t *testing.T) {
	if Head() == "" {
		t.Fatal("no head")
	}
}
