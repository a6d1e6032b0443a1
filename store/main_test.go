package store

import (
	"os"
	"testing"

	"cchub/store/pgtest"
	"cchub/workspace/wstest"
)

// Every test runs with a cchub directory of its own (the user id that
// stamps state): see wstest.PrivateConfig. The PostgreSQL server the
// tests share, if one started, is stopped after them.
func TestMain(m *testing.M) { os.Exit(wstest.Private(pgtest.Main(m))) }
