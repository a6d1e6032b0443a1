package wstest

import (
	"os"

	"cchub/proc"
	"cchub/trust"
)

// configFromParent holds the value of trust.EnvDir that a test process
// made for itself, so that the test binary run again as its child (a
// crash or multi-process test) keeps its parent's directory, and with it
// the parent's user id: state one stamped is the other's too.
const configFromParent = "CCHUB_TEST_CONFIG_FROM_PARENT"

// stateHome is workspace.EnvStateHome (wstest imports no workspace).
const stateHome = "CCHUB_STATE_HOME"

// PrivateConfig gives this test process, and the processes it starts, a
// temporary directory and a cchub directory of their own, removed when
// the tests end: no test reads or changes the person's own cchub
// directory (their id, their trust records) or their cache of state kept
// outside workspaces, and none sees another run's leftovers in the
// machine's temporary directory or leaves its own there. The temporary
// directory is a run directory of the test process (proc.MakeRunDir), so
// a test process killed before it removes it (a timeout, an interrupt)
// is swept by a later cchub. It returns the function that removes both;
// a TestMain calls it before m.Run.
func PrivateConfig() (done func()) {
	if d := os.Getenv(trust.EnvDir); d != "" && os.Getenv(configFromParent) == d {
		return proc.RemoveRunDir // the test binary run again: its parent's
	}
	machineTmp := os.TempDir()
	tmp, err := proc.MakeRunDir(machineTmp)
	if err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	conf, err := os.MkdirTemp(tmp, "cchub-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv(trust.EnvDir, conf)
	os.Setenv(configFromParent, conf)
	os.Unsetenv(stateHome) // state outside workspaces goes under conf
	// cchub mcp serves in its own process unless a test shares a hub of
	// its own making (CCHUB_HUB_DIR): no test joins or leaves behind a
	// hub of the person's.
	os.Setenv("CCHUB_NO_SHARE", "1")
	return func() {
		proc.RemoveRunDir()
		os.Setenv("TMPDIR", machineTmp)
		os.RemoveAll(tmp)
	}
}

// Private runs a package's tests with PrivateConfig; a TestMain calls
// os.Exit(wstest.Private(m)).
func Private(m interface{ Run() int }) int {
	defer PrivateConfig()()
	return m.Run()
}
