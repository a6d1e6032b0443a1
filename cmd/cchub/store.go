package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"cchub/hub"
	"cchub/store"
)

func storeCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "store stats|gc",
		Short: "the code graph's shared store: what it holds (stats), and removing what no checkout used lately (gc)",
		Long: `The code graph keeps what each file's content yields in a shared store, keyed
by the content's SHA-256: this checkout's own SQLite file by default, or a
PostgreSQL database that checkouts and CI runners share (--store, ` + hub.EnvStore + `,
or "store" in a trusted .cchub.json). What is tied to one checkout (runs,
diagnostics told, staged changes) always stays in the checkout.`,
		Args: cobra.NoArgs,
	}
	stats := &cobra.Command{
		Use:   "stats",
		Short: "what the shared store holds and how big it is",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return withHub(g, func(h *hub.Hub) error {
				st, err := h.StoreStats(c.Context())
				if err != nil {
					return err
				}
				return emit(c, g, st, statsText(st))
			})
		},
	}
	jsonFlag(stats, g)
	var unused string
	gc := &cobra.Command{
		Use:   "gc",
		Short: "remove the entries no checkout has used for --unused (and unfinished snapshots as old)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			d, err := parseAge(unused)
			if err != nil {
				return badInput(err)
			}
			return withHub(g, func(h *hub.Hub) error {
				sh, err := h.Shared(c.Context())
				if err != nil {
					return err
				}
				r, err := sh.GC(c.Context(), d)
				if err != nil {
					return err
				}
				text := fmt.Sprintf("removed %d extractions, %d snapshots (%d rows), %s, unused for %s, from %s\n",
					r.Extracts, r.Snapshots, r.Rows, size(r.Bytes), unused, sh.Where())
				return emit(c, g, r, text)
			})
		},
	}
	gc.Flags().StringVar(&unused, "unused", "30d", "remove what no checkout used for this long: 30d, 12h, 90m")
	jsonFlag(gc, g)
	c.AddCommand(stats, gc)
	return c
}

// parseAge reads a duration that may be in days (30d).
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return time.Duration(d) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("--unused %q is not an age like 30d, 12h or 90m", s)
}

func statsText(st store.SharedStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s store %s (schema %d)\n", st.Engine, st.Where, st.Schema)
	fmt.Fprintf(&b, "  extractions: %d, %s\n", st.Extracts, size(st.ExtractBytes))
	fmt.Fprintf(&b, "  token filters: %d, %s\n", st.TokenFilters, size(st.TokenBytes))
	if st.SyntaxRecords > 0 {
		fmt.Fprintf(&b, "  syntax records: %d\n", st.SyntaxRecords)
	}
	fmt.Fprintf(&b, "  snapshots:   %d complete, %d rows, %s\n", st.Snapshots, st.SnapshotRows, size(st.SnapshotBytes))
	if st.TotalBytes > 0 {
		fmt.Fprintf(&b, "  on disk:     %s\n", size(st.TotalBytes))
	}
	if !st.OldestUse.IsZero() {
		fmt.Fprintf(&b, "  last used:   %s to %s\n", st.OldestUse.Format(time.DateOnly), st.NewestUse.Format(time.DateOnly))
	}
	return b.String()
}

// size is n bytes for a person.
func size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
