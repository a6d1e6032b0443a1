package conf

import (
	"testing"

	. "gopkg.in/check.v1"
)

func Test(t *testing.T) { TestingT(t) }

type ConfigSuite struct{ r *Remote }

var _ = Suite(&ConfigSuite{})

func (s *ConfigSuite) SetUpTest(c *C) { s.r = &Remote{Name: "origin", URL: "https://x/"} }

func (s *ConfigSuite) TestValidateMissingName(c *C) {
	s.r.Name = ""
	c.Assert(s.r.Validate(), ErrorMatches, "remote has no name")
}

func (s *ConfigSuite) TestValidate(c *C) {
	c.Assert(s.r.Validate(), IsNil)
}

type URLSuite struct{}

var _ = Suite(&URLSuite{})

func (s *URLSuite) TestNormalize(c *C) {
	c.Assert(Normalize("https://x//"), Equals, "https://x")
}
