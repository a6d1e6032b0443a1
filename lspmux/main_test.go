package lspmux

import (
	"os"
	"testing"

	"cchub/workspace/wstest"
)

// TestMain gives the tests a cchub directory of their own (the user's id
// that stamps state, trust records), never the person's.
func TestMain(m *testing.M) { os.Exit(wstest.Private(m)) }
