package tokenindex

import (
	"os"
	"testing"

	"cchub/workspace/wstest"
)

// Every test runs with a cchub directory of its own (the user id that
// stamps state): see wstest.PrivateConfig.
func TestMain(m *testing.M) { os.Exit(wstest.Private(m)) }
