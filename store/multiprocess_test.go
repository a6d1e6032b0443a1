package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// writerEnv tells this test binary that it is a child of
// TestTwoProcessesWriteAtOnce: "ROOT|WHO|START_UNIX_NANO".
const writerEnv = "CCHUB_STORE_WRITER"

// writeFor is how long each child writes.
const writeFor = 3 * time.Second

// writerReport is what a child prints, on one line after "WRITER ".
type writerReport struct {
	Run     RunID
	Writes  int      // SaveSeen calls that succeeded
	Other   int      // NewRun+DropRun pairs, reads of Seen, read-then-write transactions
	Failed  int      // calls that failed, "database is locked" or other
	Errors  []string // the first few of their errors
	MaxWait string   // the slowest single write
}

// Two processes open a database that does not exist yet at the same moment
// (so both race to create it and apply the migrations), then both write
// to one named run as fast as they can for a few seconds, with anonymous
// runs made and dropped, reads, and transactions that read and then write
// (as the ledger's do) in between. No call may fail ("database is locked"
// included), every row each wrote must be there, and the migrations must
// be recorded once. (Begun deferred instead of IMMEDIATE, the
// read-then-write transactions fail hundreds of times in this test.)
func TestTwoProcessesWriteAtOnce(t *testing.T) {
	if os.Getenv(writerEnv) != "" {
		t.Skip("in the child")
	}
	root := openRoot(t, "")
	start := time.Now().Add(500 * time.Millisecond) // past both children's start-up
	const procs = 2
	reports := make([]writerReport, procs)
	var wg sync.WaitGroup
	for who := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestWriterChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d|%d", writerEnv, root.Dir(), who, start.UnixNano()))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			_, line, ok := strings.Cut(out.String(), "WRITER ")
			if err != nil || !ok {
				t.Errorf("child %d: %v\n%s", who, err, out.String())
				return
			}
			line, _, _ = strings.Cut(line, "\n")
			if err := json.Unmarshal([]byte(line), &reports[who]); err != nil {
				t.Errorf("child %d: %v in %q", who, err, line)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ctx := context.Background()
	s := openStore(t, root)
	var applied int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil {
		t.Fatal(err)
	}
	if applied != len(migrations) {
		t.Errorf("%d migrations recorded, want %d", applied, len(migrations))
	}
	run, err := s.Run(ctx, "joint")
	if err != nil {
		t.Fatal(err)
	}
	seen, err := s.Seen(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for who, r := range reports {
		t.Logf("child %d: %d writes and %d other calls in %s (%.0f writes/s), slowest write %s, %d failed",
			who, r.Writes, r.Other, writeFor, float64(r.Writes)/writeFor.Seconds(), r.MaxWait, r.Failed)
		for _, e := range r.Errors {
			t.Errorf("child %d: %s", who, e)
		}
		if r.Failed > len(r.Errors) {
			t.Errorf("child %d: and %d more failures", who, r.Failed-len(r.Errors))
		}
		if r.Run != run {
			t.Errorf("child %d wrote to run %d, the run %q is %d", who, r.Run, "joint", run)
		}
		if r.Writes < 10 {
			t.Errorf("child %d wrote only %d times: the processes did not overlap", who, r.Writes)
		}
		for i := range r.Writes {
			if seen.Hashes[writerPath(who, i)] != writerHash(who, i) {
				t.Fatalf("%s, written by child %d, is missing or wrong", writerPath(who, i), who)
			}
		}
		total += r.Writes
	}
	if len(seen.Hashes) != total {
		t.Errorf("%d rows, want %d", len(seen.Hashes), total)
	}
	var runs int
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if runs != 1 {
		t.Errorf("%d runs left, want the one named run (the anonymous ones were dropped)", runs)
	}
}

func writerPath(who, i int) string { return fmt.Sprintf("p%d/%06d.go", who, i) }
func writerHash(who, i int) [32]byte {
	return sha256.Sum256(fmt.Appendf(nil, "%d:%d", who, i))
}

// TestWriterChild is one process of TestTwoProcessesWriteAtOnce.
func TestWriterChild(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("only as a child of TestTwoProcessesWriteAtOnce")
	}
	parts := strings.Split(spec, "|")
	who, _ := strconv.Atoi(parts[1])
	startNano, _ := strconv.ParseInt(parts[2], 10, 64)
	root := openRoot(t, parts[0])
	time.Sleep(time.Until(time.Unix(0, startNano)))

	var r writerReport
	fail := func(what string, err error) {
		if r.Failed++; len(r.Errors) < 10 {
			r.Errors = append(r.Errors, fmt.Sprintf("%s: %v", what, err))
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, root)
	if err != nil {
		fail("Open", err)
	} else {
		defer s.Close()
		r.Run, err = s.Run(ctx, "joint")
		if err != nil {
			fail("Run", err)
		}
	}
	var slowest time.Duration
	for end := time.Now().Add(writeFor); err == nil && time.Now().Before(end); {
		t0 := time.Now()
		if err := s.SaveSeen(ctx, r.Run, writerPath(who, r.Writes), writerHash(who, r.Writes)); err != nil {
			fail("SaveSeen", err)
			break
		}
		slowest = max(slowest, time.Since(t0))
		r.Writes++
		switch r.Writes % 10 {
		case 3:
			anon, err := s.NewRun(ctx)
			if err == nil {
				err = s.DropRun(ctx, anon)
			}
			if err != nil {
				fail("NewRun/DropRun", err)
			}
			r.Other++
		case 7:
			if _, err := s.Seen(ctx, r.Run); err != nil {
				fail("Seen", err)
			}
			r.Other++
		default:
			// What owners do (the ledger's report): read, then write
			// what the read decided, in one transaction. Begun deferred,
			// two processes doing this at once fail with "database is
			// locked" without waiting.
			err := s.Write(ctx, func(tx *sql.Tx) error {
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM run_seen WHERE run = ?`, r.Run).Scan(&n); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `UPDATE runs SET last_used = ? WHERE id = ?`, n, r.Run)
				return err
			})
			if err != nil {
				fail("read, then write", err)
			}
			r.Other++
		}
	}
	r.MaxWait = slowest.Round(time.Microsecond).String()
	b, _ := json.Marshal(r)
	fmt.Printf("WRITER %s\n", b)
}
