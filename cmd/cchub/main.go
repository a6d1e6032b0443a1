// Command cchub is the code-intelligence hub: an MCP server for agents and a
// CLI for humans and CI. This file only wires flags to the hub.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"cchub/hub"
	"cchub/proc"
	"cchub/store"
	"cchub/textfmt"
)

// exitError carries an exit code: 1 for "no match", 2 for bad input.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func badInput(err error) error { return &exitError{code: 2, err: err} }

var errNoMatch = &exitError{code: 1, err: errors.New("")}

type globals struct {
	root      string
	asJSON    bool
	runName   string
	store     string
	storeKey  string // --store-key-file
	storeMode string // --store-mode
	// shared, in the shared hub, is the warm hub a one-shot command runs
	// on (nil: the command opens its own).
	shared *hub.Hub
	// warn is where a command's hub warns (hub.Options.Warn): a line on
	// stderr, quoted if it holds a control character, since it may carry
	// a path or a file system's error and stderr is often a terminal.
	warn func(msg string)
}

// storeOptions is the hub's store key and mode: --store-key-file, else
// CCHUB_STORE_KEY_FILE, else the key in CCHUB_STORE_KEY; --store-mode,
// else CCHUB_STORE_MODE. A key file others may read is refused (as ssh
// refuses a private key), and so is a key too short: a process told to
// check what it reads must not go on without checking.
func (g *globals) storeOptions(o *hub.Options) error {
	file := g.storeKey
	if file == "" {
		file = os.Getenv(hub.EnvStoreKeyFile)
	}
	var err error
	switch {
	case file != "":
		o.StoreKey, err = store.LoadKeyFile(file)
	case os.Getenv(hub.EnvStoreKey) != "":
		o.StoreKey, err = store.NewKey([]byte(os.Getenv(hub.EnvStoreKey)))
		if err != nil {
			err = fmt.Errorf("$%s: %w", hub.EnvStoreKey, err)
		}
	}
	if err != nil {
		return err
	}
	mode := g.storeMode
	if mode == "" {
		mode = os.Getenv(hub.EnvStoreMode)
	}
	o.StoreMode, err = store.ParseMode(mode)
	return err
}

// storeSpec is the shared store --store names, else CCHUB_STORE.
func (g *globals) storeSpec() string {
	if g.store != "" {
		return g.store
	}
	return os.Getenv(hub.EnvStore)
}

// newRun is the run of this call: its own, or the named one it joins
// with --run.
func (g *globals) newRun() *hub.Run {
	r := hub.NewRun()
	r.Name = g.runName
	return r
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	stdout, stderr := newTextWriter(os.Stdout), newTextWriter(os.Stderr)
	stopProfiles := startProfiles()
	code, served := viaSharedHub(ctx, os.Args[1:], stdout, stderr)
	if !served {
		err := newRootCmd(stdout, stderr).ExecuteContext(ctx)
		code = exitCode(err, stderr)
	}
	stop()
	stopProfiles()
	// What this process made for its sessions goes with it (a process
	// killed before this is swept by the next cchub mcp).
	proc.RemoveRunDir()
	stdout.Flush()
	stderr.Flush()
	os.Exit(code)
}

// exitCode is the exit code of a command that returned err, which it
// says on stderr. An error may quote a path, a pattern or a server's
// answer: stderr escapes it like the rest.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	code := 2
	msg := err.Error()
	var ee *exitError
	if errors.As(err, &ee) {
		code, msg = ee.code, ee.err.Error()
	}
	if msg != "" {
		fmt.Fprintln(stderr, "cchub:", msg)
	}
	return code
}

// newRootCmd is the command tree writing to stdout and stderr, each
// through an escaping writer (see out.go).
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	return newRootCmdOn(stdout, stderr, nil)
}

// newRootCmdOn is the command tree whose one-shot commands run on shared,
// a warm hub of the shared hub, when it is not nil.
func newRootCmdOn(stdout, stderr io.Writer, shared *hub.Hub) *cobra.Command {
	g := &globals{shared: shared}
	root := &cobra.Command{
		Use:           "cchub",
		Short:         "cchub: a code-intelligence hub for agents, humans and CI",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	if _, ok := stdout.(*visibleWriter); !ok {
		stdout = newTextWriter(stdout)
	}
	if _, ok := stderr.(*visibleWriter); !ok {
		stderr = newTextWriter(stderr)
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	g.warn = func(msg string) { fmt.Fprintln(stderr, "cchub:", textfmt.ShowPath(msg)) }
	root.PersistentFlags().StringVar(&g.root, "root", ".", "workspace root")
	root.PersistentFlags().StringVar(&g.store, "store", "", "the code graph's shared store: a postgres:// URL that checkouts and CI runners share, or sqlite (default: $"+hub.EnvStore+", else a trusted .cchub.json's \"store\", else this checkout's own file)")
	root.PersistentFlags().StringVar(&g.storeKey, "store-key-file", "", "a file holding the team's store key (chmod 600): rows written to the shared store carry its MAC, and rows without a valid one are not used (default: $"+hub.EnvStoreKeyFile+", else the key in $"+hub.EnvStoreKey+")")
	root.PersistentFlags().StringVar(&g.storeMode, "store-mode", "", "write (default) or read: use the shared store and write nothing to it (default: $"+hub.EnvStoreMode+")")
	root.PersistentFlags().StringVar(&g.runName, "run", "", "join the named run: calls with the same name share what they were told (diagnostics) and what they read")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return badInput(err) })
	root.AddCommand(
		mcpCmd(g), demoCmd(g),
		globCmd(g), grepCmd(g), readCmd(g), outlineCmd(g), symbolCmd(g),
		editCmd(g), searchCmd(g), diagCmd(g), indexCmd(g), graphCmd(g), blastCmd(g),
	)
	root.AddCommand(rewriteCmds(g)...)
	root.AddCommand(anchorCmd(g))
	root.AddCommand(trustCmd(g))
	root.AddCommand(storeCmd(g))
	root.AddCommand(hubServeCmd(g), statusCmd(g))
	return root
}

// withHub opens the hub for the command's root and closes it afterwards.
func withHub(g *globals, fn func(h *hub.Hub) error) error {
	if g.shared != nil {
		return fn(g.shared)
	}
	o := hub.Options{OneShot: true, Store: g.storeSpec(), Warn: g.warn}
	if err := g.storeOptions(&o); err != nil {
		return badInput(err)
	}
	h, err := hub.Open(g.root, o)
	if err != nil {
		return badInput(err)
	}
	defer h.Close()
	return fn(h)
}

// show runs a hub call and prints its result: a failed call is bad input.
func show[T interface{ Text() string }](c *cobra.Command, g *globals, call func(h *hub.Hub) (T, error)) error {
	return withHub(g, func(h *hub.Hub) error {
		r, err := call(h)
		if err != nil {
			return badInput(err)
		}
		return emit(c, g, r, r.Text())
	})
}

// emit prints data as JSON with --json, else its text form.
func emit(c *cobra.Command, g *globals, data any, text string) error {
	if g.asJSON {
		return writeJSON(c, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(data)
		})
	}
	_, err := io.WriteString(c.OutOrStdout(), text)
	return err
}

// emitFound prints what a search found (emit) and exits 1 when it found
// nothing, as grep does.
func emitFound(c *cobra.Command, g *globals, data any, text string, found int) error {
	if err := emit(c, g, data, text); err != nil {
		return err
	}
	if found == 0 {
		return errNoMatch
	}
	return nil
}

func jsonFlag(c *cobra.Command, g *globals) {
	c.Flags().BoolVar(&g.asJSON, "json", false, "print the result as JSON (complete, never cut)")
}

// unlimited is what the CLI asks for unless told: humans and CI get
// everything a person or a script can use. It is still a bound: every
// match is held until the answer is printed, and a grep that matches each
// line of a 64 MB file would otherwise take gigabytes.
const unlimited = 200_000

// cliLimit turns a --limit flag (0: no limit) into a locate limit.
func cliLimit(n int) int {
	if n <= 0 || n > unlimited {
		return unlimited
	}
	return n
}
