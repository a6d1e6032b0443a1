package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cchub/blast"
	"cchub/hub"
)

func blastCmd(g *globals) *cobra.Command {
	var o blast.Options
	var format, testsFormat, durations string
	var goos, goarch, tags []string
	var failAbove, limit int
	c := &cobra.Command{
		Use:   "blast --base REF [--head REF]",
		Short: "what a diff changes and what calls it: changed definitions, their callers by distance, files, tests (for CI)",
		Long: `Compare two revisions (or a revision and the working tree) and report the
definitions the diff changed (modified, added, removed, moved) and the
definitions that call them, up to --max-depth calls away, with their files and
the tests among them. A removed definition's callers are the calls that still
name it: they will break. --head reads the head revision from git, so nothing
needs to be checked out.

Formats: text (for a person; lists cut at --limit), json (complete, schema
version 1), github (workflow annotations on the changed definitions that reach
the most, at most 10, and the full lists appended to $GITHUB_STEP_SUMMARY as
Markdown when it is set), sarif (SARIF 2.1.0, complete).

--tests answers instead which tests the change can break, through calls
of any evidence at any distance (--max-depth and --min-confidence do not
bound it), and, where the graph cannot see (go.mod, testdata, embedded and
non-code files, build constraints, package variables, conftest.py), whole
packages or the whole suite, each with why. --tests-format: text (the
commands and why), json (schema version 1, see docs/blast.md), commands
(only the shell commands, one a line: the sure groups, then the cautious
ones; the whole suite's when everything must run).

Each edge carries its evidence: confirmed, exact, import, name-only or
possible (a call too widely named to link). --confirm asks the workspace's
language server (gopls, pyright, typescript-language-server) about the
name-only and possible edges, within --confirm-budget (20 s): refuted edges are left out and
counted, confirmed ones make their tests sure. The server sees the working
tree, so --confirm with --head asks nothing.

Exit codes: 0 done; 1 more definitions reached than --fail-above; 2 bad input
or a failure (not a git work tree, an unknown revision), with the reason on
stderr.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if g.asJSON {
				if c.Flags().Changed("format") && format != "json" {
					return badInput(fmt.Errorf("--json and --format %s disagree; give one", format))
				}
				format = "json"
			}
			switch format {
			case "text", "json", "github", "sarif", "markdown", "dot":
			default:
				return badInput(fmt.Errorf("--format %q: one of text, json, github, sarif, markdown, dot", format))
			}
			if c.Flags().Changed("tests-format") && !o.Tests {
				return badInput(fmt.Errorf("--tests-format needs --tests"))
			}
			if o.Tests {
				if c.Flags().Changed("format") && format != "markdown" {
					return badInput(fmt.Errorf("--format %s does not apply with --tests; give --tests-format text, json or commands (or --format markdown: the picture, the tests and the tables)", format))
				}
				if g.asJSON {
					testsFormat = "json"
				}
				switch testsFormat {
				case "text", "json", "commands":
				default:
					return badInput(fmt.Errorf("--tests-format %q: one of text, json, commands", testsFormat))
				}
			}
			if durations != "" && !o.Tests {
				return badInput(fmt.Errorf("--durations needs --tests"))
			}
			targets, err := platforms(goos, goarch, tags)
			if err != nil {
				return badInput(err)
			}
			if len(targets) > 1 && !o.Tests {
				return badInput(fmt.Errorf("--goos/--goarch/--tags given more than once make a matrix of test selections: they need --tests"))
			}
			if len(targets) > 1 && testsFormat == "commands" {
				return badInput(fmt.Errorf("--tests-format commands prints one target's commands: give one --goos/--goarch/--tags, or --tests-format json (each target's groups under \"matrix\") or text"))
			}
			o.Platform, o.Matrix = targets[0], targets[1:]
			o.Confirm = o.Confirm || c.Flags().Changed("confirm-budget")
			return withHub(g, func(h *hub.Hub) error {
				r, err := h.Blast(c.Context(), o)
				if err != nil {
					return badInput(err)
				}
				if durations != "" {
					if r.Selection == nil {
						return badInput(fmt.Errorf("--durations needs --tests"))
					}
					data, err := os.ReadFile(durations)
					if err != nil {
						return badInput(fmt.Errorf("--durations: %w", err))
					}
					d, err := blast.ParseDurations(data)
					if err != nil {
						return badInput(fmt.Errorf("--durations %s: %w", durations, err))
					}
					r.Selection.ApplyDurations(d)
				}
				if o.Tests && format != "markdown" {
					err = writeTests(c, r, testsFormat)
				} else {
					err = writeBlast(c, r, format, limit)
				}
				if err != nil {
					return err
				}
				if failAbove >= 0 && len(r.Reached) > failAbove {
					msg := fmt.Sprintf("%d definition(s) reached, more than --fail-above %d", len(r.Reached), failAbove)
					if format == "github" {
						fmt.Fprintf(c.OutOrStdout(), "::error title=cchub blast::%s\n", msg)
					}
					return &exitError{code: 1, err: fmt.Errorf("blast: %s", msg)}
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&o.Base, "base", "", "the revision the change is measured from (e.g. origin/main)")
	c.Flags().StringVar(&o.Head, "head", "", "the revision with the change, read from git without a checkout (default: the working tree)")
	c.Flags().BoolVar(&o.MergeBase, "merge-base", false, "measure from the merge base of --base and the head: only what the branch adds")
	c.Flags().IntVar(&o.MaxDepth, "max-depth", blast.DefaultDepth, "how many calls away to look")
	c.Flags().StringVar(&o.MinConfidence, "min-confidence", "", "leave out edges less sure than this: exact, import, name-only or possible (default: every edge)")
	c.Flags().BoolVar(&o.Confirm, "confirm", false, "ask the language server about name-only and possible edges: confirmed or refuted (left out); the working tree only")
	c.Flags().DurationVar(&o.ConfirmBudget, "confirm-budget", 20*time.Second, "with --confirm: how long the language server may take (a cold server on a large repository needs more)")
	c.Flags().StringVar(&format, "format", "text", "text, json, github, sarif, markdown (a Mermaid picture, the tests with --tests, the tables: for a PR comment or $GITHUB_STEP_SUMMARY) or dot (Graphviz)")
	c.Flags().BoolVar(&o.Tests, "tests", false, "answer the tests the change can break, and the commands that run them")
	c.Flags().StringVar(&testsFormat, "tests-format", "text", "with --tests: text, json or commands")
	c.Flags().IntVar(&failAbove, "fail-above", -1, "exit 1 when more than N definitions are reached (default: never)")
	c.Flags().IntVar(&limit, "limit", blast.DefaultLimit, "text and step summary: most entries of each list (0: all)")
	c.Flags().StringVar(&durations, "durations", "", "with --tests: a record of an earlier run (go test -json output, or a JUnit XML report) that gives each group, and the selection, its expected time")
	c.Flags().StringSliceVar(&goos, "goos", nil, "with --tests: the GOOS go test builds for (default: this machine's); files it does not build select nothing; several (repeated or comma-separated) make a matrix")
	c.Flags().StringSliceVar(&goarch, "goarch", nil, "with --tests: the GOARCH go test builds for (default: this machine's); several make a matrix")
	c.Flags().StringArrayVar(&tags, "tags", nil, "with --tests: the build tags go test builds with (comma-separated); repeated, each is one entry of a matrix")
	c.MarkFlagRequired("base")
	jsonFlag(c, g)
	return c
}

// platforms is the targets --goos, --goarch and --tags name: each GOOS
// with each GOARCH and each tag set (one --tags each), the first
// target first; none given is this machine's.
func platforms(goos, goarch, tags []string) ([]blast.Platform, error) {
	if len(goos) == 0 {
		goos = []string{""}
	}
	if len(goarch) == 0 {
		goarch = []string{""}
	}
	sets := [][]string{nil}
	if len(tags) > 0 {
		sets = sets[:0]
		for _, t := range tags {
			var set []string
			for _, tag := range strings.Split(t, ",") {
				if tag = strings.TrimSpace(tag); tag != "" {
					set = append(set, tag)
				}
			}
			sets = append(sets, set)
		}
	}
	var out []blast.Platform
	seen := map[string]bool{}
	for _, os := range goos {
		for _, arch := range goarch {
			for _, set := range sets {
				p := blast.Platform{GOOS: strings.TrimSpace(os), GOARCH: strings.TrimSpace(arch), Tags: set}
				if err := p.Check(); err != nil {
					return nil, fmt.Errorf("--goos/--goarch: %w", err)
				}
				if !seen[p.String()] {
					seen[p.String()] = true
					out = append(out, p)
				}
			}
		}
	}
	return out, nil
}

// writeTests prints a report's test selection in a format.
func writeTests(c *cobra.Command, r *blast.Report, format string) error {
	s := r.Selection
	switch format {
	case "json":
		return writeJSON(c, s.WriteJSON)
	case "commands":
		// Shell input, byte for byte: its quoting already writes every
		// control character as printf's octal escape (blast.shellQuote),
		// so what a terminal shows of it is visible too.
		return s.WriteCommands(rawOut(c))
	}
	return s.WriteText(c.OutOrStdout(), r.Title())
}

// writeBlast prints a report in a format; the github format also appends
// its Markdown to the step summary when the workflow has one.
func writeBlast(c *cobra.Command, r *blast.Report, format string, limit int) error {
	w := c.OutOrStdout()
	switch format {
	case "json":
		return writeJSON(c, r.WriteJSON)
	case "markdown":
		// Everything in it is already made visible (mdText, mdCode,
		// mermaidText): written as it is, for a comment or a summary.
		_, err := io.WriteString(w, r.Markdown(limit))
		return err
	case "dot":
		return r.WriteDot(w)
	case "sarif":
		return writeJSON(c, r.WriteSARIF)
	case "github":
		// Workflow commands are read by the runner and shown to people in
		// the log and on the pull request: escaped like text (their own
		// escaping already wrote line breaks as %0A).
		if err := r.WriteGitHub(w); err != nil {
			return err
		}
		if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				return fmt.Errorf("blast: step summary: %w", err)
			}
			_, err = io.WriteString(f, r.StepSummary(limit))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("blast: step summary: %w", err)
			}
		}
		return nil
	}
	return r.WriteText(w, limit)
}
