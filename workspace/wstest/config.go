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

// PrivateConfig points trust.EnvDir at a fresh directory for this test
// process and the processes it starts, so no test reads or changes the
// person's own cchub directory (their id, their trust records) or their
// cache of state kept outside workspaces. It returns the function that
// removes the directory, and the process's run directory (proc.RunDir)
// if a test made one. A TestMain calls it before m.Run.
func PrivateConfig() (done func()) {
	if d := os.Getenv(trust.EnvDir); d != "" && os.Getenv(configFromParent) == d {
		return proc.RemoveRunDir
	}
	conf, err := os.MkdirTemp("", "cchub-config-")
	if err != nil {
		panic(err)
	}
	os.Setenv(trust.EnvDir, conf)
	os.Setenv(configFromParent, conf)
	os.Unsetenv(stateHome) // state outside workspaces goes under conf
	return func() {
		os.RemoveAll(conf)
		proc.RemoveRunDir()
	}
}

// Private runs a package's tests with PrivateConfig; a TestMain calls
// os.Exit(wstest.Private(m)).
func Private(m interface{ Run() int }) int {
	defer PrivateConfig()()
	return m.Run()
}
