package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"cchub/hub"
	"cchub/store"
	"cchub/textfmt"
	"cchub/trust"
	"cchub/workspace"
)

// trustCmd is how a person (never an agent's tool call: no MCP tool does
// this) lets a workspace's .cchub.json name programs for cchub to run.
func trustCmd(g *globals) *cobra.Command {
	var yes, revoke, list bool
	c := &cobra.Command{
		Use:   "trust",
		Short: "show what the workspace's .cchub.json would run, and trust it (--revoke, --list)",
		Long: `A workspace is input: until a person trusts it, cchub runs nothing its
.cchub.json names (server and debug adapter command, args, env,
init_options, added servers); its other settings apply. trust shows what
would run and, once you confirm, records the trust in your own
configuration directory (never in the workspace), for this workspace's
real path and the exact content of its .cchub.json: any change to the
file revokes it.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			out := c.OutOrStdout()
			if list {
				return listTrust(out)
			}
			root, err := workspace.Open(g.root)
			if err != nil {
				return badInput(err)
			}
			defer root.Close()
			if revoke {
				was, err := trust.Revoke(root.Dir())
				if err != nil {
					return err
				}
				if !was {
					fmt.Fprintf(out, "%s was not trusted; nothing to revoke\n", textfmt.Visible(root.Dir()))
					return nil
				}
				fmt.Fprintf(out, "%s is no longer trusted: cchub ignores what its %s names to run\n", textfmt.Visible(root.Dir()), workspace.ConfigFile)
				return nil
			}
			file, runs, err := hub.ConfiguredPrograms(root)
			if err != nil {
				return badInput(fmt.Errorf("%w; fix the file first (nothing was trusted)", err))
			}
			own := hub.OwnCodeRunners()
			if file.Trusted {
				fmt.Fprintf(out, "%s is trusted already, with this %s\n", textfmt.Visible(root.Dir()), workspace.ConfigFile)
				return nil
			}
			if len(runs) > 0 {
				fmt.Fprintf(out, "%s of %s names these programs for cchub to run:\n", workspace.ConfigFile, textfmt.Visible(root.Dir()))
				for _, r := range runs {
					fmt.Fprintf(out, "  %s\n", textfmt.Visible(r))
				}
			} else if file.Data == nil {
				fmt.Fprintf(out, "%s has no %s: it names no program to run.\n", textfmt.Visible(root.Dir()), workspace.ConfigFile)
			} else {
				fmt.Fprintf(out, "%s of %s names no program to run.\n", workspace.ConfigFile, textfmt.Visible(root.Dir()))
			}
			if spec, _ := hub.StoreFromConfig(workspace.Config{Data: file.Data, Trusted: true}); spec != "" {
				fmt.Fprintf(out, "It names a shared store the code graph reads its answers from and writes the index to:\n  %s\n", textfmt.Visible(store.Redact(spec)))
			}
			fmt.Fprintln(out, "Trusted, the workspace may also have cchub start these, which run code it holds:")
			for _, r := range own {
				fmt.Fprintf(out, "  %s\n", r)
			}
			fmt.Fprintf(out, "They run with your rights whenever cchub needs them in this workspace, until %s changes.\n", workspace.ConfigFile)
			runs = append(runs, own...)
			if !yes {
				if !isTerminal(os.Stdin) {
					return badInput(fmt.Errorf("not trusted: a person confirms trust at a terminal; run cchub trust there, or add --yes after reading the above"))
				}
				fmt.Fprint(out, "Trust them? [y/N] ")
				answer, _ := bufio.NewReader(c.InOrStdin()).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					fmt.Fprintln(out, "not trusted")
					return nil
				}
			}
			if err := trust.Grant(root.Dir(), file.Data, runs); err != nil {
				return err
			}
			fmt.Fprintf(out, "trusted: %s (revoke with cchub trust --revoke; any change to %s revokes it too)\n", textfmt.Visible(root.Dir()), workspace.ConfigFile)
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "trust without asking (you have read what it runs)")
	c.Flags().BoolVar(&revoke, "revoke", false, "stop trusting the workspace")
	c.Flags().BoolVar(&list, "list", false, "list the trusted workspaces and whether their .cchub.json is still the one trusted")
	c.MarkFlagsMutuallyExclusive("yes", "revoke", "list")
	return c
}

// listTrust prints every trusted workspace and whether it still holds
// the configuration that was trusted.
func listTrust(out io.Writer) error {
	es, err := trust.List()
	if err != nil {
		return err
	}
	if len(es) == 0 {
		fmt.Fprintln(out, "no workspace is trusted")
		return nil
	}
	for _, e := range es {
		state := "trusted"
		if data, err := os.ReadFile(e.Root + string(os.PathSeparator) + workspace.ConfigFile); err != nil && e.SHA256 != trust.Absent {
			state = "gone: its " + workspace.ConfigFile + " cannot be read"
		} else if err == nil && trust.Hash(data) != e.SHA256 {
			state = "revoked: its " + workspace.ConfigFile + " changed since"
		}
		fmt.Fprintf(out, "%s\t%s\t%s\n", textfmt.Visible(e.Root), e.When.Format("2006-01-02 15:04"), state)
		for _, r := range e.Runs {
			fmt.Fprintf(out, "\t%s\n", textfmt.Visible(r))
		}
	}
	return nil
}

// isTerminal says whether f is a terminal a person types at (not
// /dev/null, a pipe or a file).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
