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
	"time"

	"github.com/spf13/cobra"

	"cchub/demo"
	"cchub/hub"
	"cchub/locate"
	"cchub/mcpserver"
	"cchub/outline"
	"cchub/proc"
	"cchub/structsearch"
	"cchub/syntax"
	"cchub/textedit"
	"cchub/workspace"
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
	root    string
	asJSON  bool
	runName string
	store   string
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
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	// What this process made for its sessions goes with it (a process
	// killed before this is swept by the next cchub mcp).
	proc.RemoveRunDir()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if msg := ee.err.Error(); msg != "" {
				fmt.Fprintln(os.Stderr, "cchub:", msg)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "cchub:", err)
		os.Exit(2)
	}
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "cchub",
		Short:         "cchub: a code-intelligence hub for agents, humans and CI",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.root, "root", ".", "workspace root")
	root.PersistentFlags().StringVar(&g.store, "store", "", "the code graph's shared store: a postgres:// URL that checkouts and CI runners share, or sqlite (default: $"+hub.EnvStore+", else a trusted .cchub.json's \"store\", else this checkout's own file)")
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
	return root
}

// warn is where a command's hub warns (hub.Options.Warn): a line on
// stderr, quoted if it holds a control character, since it may carry a
// path or a file system's error and stderr is often a terminal.
func warn(msg string) { fmt.Fprintln(os.Stderr, "cchub:", workspace.ShowPath(msg)) }

// withHub opens the hub for the command's root and closes it afterwards.
func withHub(g *globals, fn func(h *hub.Hub) error) error {
	h, err := hub.Open(g.root, hub.Options{OneShot: true, Store: g.storeSpec(), Warn: warn})
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
		return emit(c.OutOrStdout(), g, r, r.Text())
	})
}

// emit prints data as JSON with --json, else its text form.
func emit(w io.Writer, g *globals, data any, text string) error {
	if g.asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(data)
	}
	_, err := io.WriteString(w, text)
	return err
}

func jsonFlag(c *cobra.Command, g *globals) {
	c.Flags().BoolVar(&g.asJSON, "json", false, "print the result as JSON (complete, never cut)")
}

func mcpCmd(g *globals) *cobra.Command {
	var cacheMB int
	var approval string
	var diagWait time.Duration
	c := &cobra.Command{
		Use:   "mcp",
		Short: "serve agents over MCP on stdio",
		Long: `Serve agents over MCP on stdio: one JSON-RPC message per line, at most 16 MiB.

A malformed line is answered with its JSON-RPC error and the session goes on.
cchub exits when the client closes stdin, or on SIGTERM or SIGINT, after
cancelling the tool calls in flight (within about a second). Notes the client
is not sent (a dropped malformed notification, the hub's warnings) go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			policy, err := hub.ParseApproval(approval)
			if err != nil {
				return badInput(err)
			}
			// A hub killed outright (with its debug supervisor, say) left
			// its run directory: the first start after it removes it.
			proc.SweepRunDirs(os.TempDir())
			h, err := hub.Open(g.root, hub.Options{ParseCacheBytes: cacheMB << 20, Approval: policy, Store: g.storeSpec(), DiagnosticsTimeout: diagWait, Warn: mcpserver.Warn})
			if err != nil {
				return badInput(err)
			}
			defer h.Close()
			return mcpserver.Serve(c.Context(), h)
		},
	}
	c.Flags().IntVar(&cacheMB, "parse-cache-mb", syntax.DefaultParseCacheBytes>>20,
		"source megabytes whose parsed trees stay cached (trees take several times their source in memory)")
	c.Flags().StringVar(&approval, "approval", os.Getenv("CCHUB_APPROVAL"),
		"who may accept staged changes: human (default; the agent is told to ask for `cchub review ID`) or agent (the resolve tool may accept); default from $CCHUB_APPROVAL")
	c.Flags().DurationVar(&diagWait, "diagnostics-timeout", 0,
		"how long a change's answer waits for its diagnostics to settle (default: .cchub.json's diagnostics_timeout, else 5s); what comes later is told with the next answer")
	return c
}

func demoCmd(g *globals) *cobra.Command {
	var from string
	c := &cobra.Command{
		Use:   "demo",
		Short: "a scripted tour of every capability on a bundled workspace",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			return demo.Run(c.Context(), c.OutOrStdout(), demo.Options{Binary: self, Workspace: from})
		},
	}
	c.Flags().StringVar(&from, "workspace", "", "workspace to tour (copied first; default: the bundled testdata/workspaces/go)")
	return c
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

func globCmd(g *globals) *cobra.Command {
	var path string
	var limit int
	c := &cobra.Command{
		Use:   "glob PATTERN",
		Short: "list files matching a glob, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Glob(c.Context(), locate.GlobOptions{Pattern: args[0], Path: path, Limit: cliLimit(limit)})
				if err != nil {
					return badInput(err)
				}
				if err := emit(c.OutOrStdout(), g, r, r.Text()); err != nil {
					return err
				}
				if r.Total == 0 {
					return errNoMatch
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&path, "path", "", "directory to search under")
	c.Flags().IntVar(&limit, "limit", 0, "most files to list (0: all, up to 200,000)")
	jsonFlag(c, g)
	return c
}

func grepCmd(g *globals) *cobra.Command {
	var o locate.GrepOptions
	c := &cobra.Command{
		Use:   "grep PATTERN [PATH]",
		Short: "search file contents (RE2 regex, or --literal)",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			o.Pattern = args[0]
			if len(args) == 2 {
				o.Path = args[1]
			}
			o.Limit = cliLimit(o.Limit)
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Grep(c.Context(), o)
				if err != nil {
					return badInput(err)
				}
				if err := emit(c.OutOrStdout(), g, r, r.Text()); err != nil {
					return err
				}
				if r.Total == 0 {
					return errNoMatch
				}
				return nil
			})
		},
	}
	c.Flags().BoolVarP(&o.Literal, "literal", "F", false, "pattern is plain text")
	c.Flags().BoolVarP(&o.IgnoreCase, "ignore-case", "i", false, "ignore letter case")
	c.Flags().StringVar(&o.Include, "include", "", "only files whose path matches this glob")
	c.Flags().IntVar(&o.Limit, "limit", 0, "most matching lines to show (0: all, up to 200,000)")
	jsonFlag(c, g)
	return c
}

func readCmd(g *globals) *cobra.Command {
	var o locate.ReadOptions
	c := &cobra.Command{
		Use:   "read PATH",
		Short: "print a file's lines, numbered (or list a directory)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Path = args[0]
			return show(c, g, func(h *hub.Hub) (*locate.ReadResult, error) { return h.Read(c.Context(), o, g.newRun()) })
		},
	}
	c.Flags().IntVar(&o.Offset, "offset", 0, "first line to print, 1-based")
	c.Flags().IntVar(&o.Limit, "limit", 0, "most lines to print (default 2000)")
	jsonFlag(c, g)
	return c
}

func outlineCmd(g *globals) *cobra.Command {
	var o outline.Options
	c := &cobra.Command{
		Use:   "outline PATH",
		Short: "a file's symbols with line ranges (or a directory's map)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*outline.Result, error) { return h.Outline(c.Context(), args[0], o) })
		},
	}
	c.Flags().IntVar(&o.LongFunctionLines, "long-function", 0, "list the blocks of functions longer than this many lines (default 150; with --detail)")
	c.Flags().StringVar(&o.Match, "match", "", "keep only symbols whose name contains this, or matches this glob")
	c.Flags().BoolVar(&o.Detail, "detail", false, "show doc summaries, decorators, group members and the blocks of long functions")
	jsonFlag(c, g)
	return c
}

func symbolCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "symbol ID",
		Short: "print one symbol: ID is path:Name, path:Type.method or path:line:Name",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*outline.SymbolText, error) {
				return h.ReadSymbol(c.Context(), args[0], outline.Budget{}, g.newRun())
			})
		},
	}
	jsonFlag(c, g)
	return c
}

func editCmd(g *globals) *cobra.Command {
	var ch textedit.Change
	c := &cobra.Command{
		Use:   "edit PATH --old S --new S",
		Short: "replace one place in a file, as the agents' edit tool does",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return show(c, g, func(h *hub.Hub) (*hub.EditOutcome, error) { return h.Edit(c.Context(), args[0], ch, g.newRun()) })
		},
	}
	c.Flags().StringVar(&ch.Old, "old", "", "the text to replace")
	c.Flags().StringVar(&ch.New, "new", "", "the text to put in its place")
	c.Flags().BoolVar(&ch.ReplaceAll, "replace-all", false, "replace every occurrence")
	c.MarkFlagRequired("old")
	c.MarkFlagRequired("new")
	jsonFlag(c, g)
	return c
}

func searchCmd(g *globals) *cobra.Command {
	var o structsearch.Options
	var counts bool
	c := &cobra.Command{
		Use:   "search -p PATTERN [-l LANG] [PATH...]",
		Short: "structural search: find code by shape, with $METAVARIABLES",
		RunE: func(c *cobra.Command, args []string) error {
			o.Paths = args
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Search(c.Context(), o)
				if err != nil {
					return badInput(err)
				}
				if g.asJSON {
					err = r.WriteJSONLines(c.OutOrStdout())
				} else {
					_, err = io.WriteString(c.OutOrStdout(), r.Text(structsearch.TextOptions{Counts: counts}))
				}
				if err != nil {
					return err
				}
				if len(r.Matches) == 0 {
					return errNoMatch
				}
				return nil
			})
		},
	}
	c.Flags().StringVarP(&o.Pattern, "pattern", "p", "", "the pattern, e.g. 'if $X != nil { return $X }'")
	c.Flags().StringVarP(&o.Lang, "lang", "l", "", "language of the pattern (default: each file's own)")
	c.Flags().BoolVar(&counts, "count", false, "print a count per file instead of the matches")
	c.MarkFlagRequired("pattern")
	c.Flags().BoolVar(&g.asJSON, "json", false, "print one JSON object per match, a line each (complete, never cut)")
	return c
}

func diagCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "diag [PATH...]",
		Short: "the language servers' diagnostics of files (all of the workspace without PATH); exit 1 when one is an error, 3 when a file could not be checked",
		Long: "Print the language servers' current diagnostics of the files given, or of the whole workspace.\n\n" +
			"Exit codes: 0 no error found in what was checked, and everything was checked; 1 a diagnostic is an error\n" +
			"(whatever else could not be checked); 2 bad input; 3 no error found, but a file (or, for the whole\n" +
			"workspace, a server) could not be checked: its language server is missing, failed to start, was still\n" +
			"starting or crashed, as the notes say. A gate treats 3 as \"not known to be clean\".",
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Diagnostics(c.Context(), nil, args)
				if err != nil {
					return badInput(err)
				}
				if err := emit(c.OutOrStdout(), g, r, r.Lines()); err != nil {
					return err
				}
				if r.Errors() > 0 {
					return errNoMatch
				}
				if len(r.Unchecked) > 0 {
					return &exitError{code: 3, err: fmt.Errorf("%d not checked (%v): the notes say why and how to fix it", len(r.Unchecked), r.Unchecked)}
				}
				return nil
			})
		},
	}
	jsonFlag(c, g)
	return c
}

func indexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "build the code graph (definitions, calls, imports) and the token index of the workspace, and say what they hold",
		Long: "Index the workspace's code graph, and the token index that lets search and grep skip files that cannot match, into .cchub/:\n" +
			"only files changed since the last index are read again.\n" +
			"On a terminal, a progress bar shows the files read; nothing is drawn when stderr is not a terminal.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				bar := newProgress(c.ErrOrStderr(), "indexing")
				st, err := h.Index(c.Context(), bar.Phase)
				bar.Finish()
				if err != nil {
					return err
				}
				shared := ""
				if st.Shared > 0 {
					shared = fmt.Sprintf(", %d from the shared store", st.Shared)
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "indexed %d files (%d read, %d parsed%s, %d removed): %d definitions, %d calls\n%s\n",
					st.Files, st.Read, st.Parsed, shared, st.Removed, st.Defs, st.Calls, st.Tokens)
				return err
			})
		},
	}
}

func graphCmd(g *globals) *cobra.Command {
	var q hub.GraphQuery
	c := &cobra.Command{
		Use:   "graph symbols|callers|callees|blast NAME...",
		Short: "ask the code graph: definitions by name or glob, callers, callees, blast radius",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			q.Op, q.Name, q.Names = args[0], args[1], args[2:]
			return show(c, g, func(h *hub.Hub) (*hub.GraphResult, error) { return h.Graph(c.Context(), q) })
		},
	}
	c.Flags().IntVar(&q.Depth, "depth", 3, "blast: how many calls away")
	c.Flags().StringVar(&q.MinConfidence, "min-confidence", "", "blast: the least evidence followed: exact, import, name-only or possible")
	c.Flags().BoolVar(&q.Confirm, "confirm", false, "callers, blast: ask the language server about name-only and possible edges (refuted ones are left out)")
	jsonFlag(c, g)
	return c
}
