package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKey(t *testing.T, secret string) *Key {
	t.Helper()
	k, err := NewKey([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const (
	teamSecret  = "0123456789abcdef0123456789abcdef-team"
	otherSecret = "0123456789abcdef0123456789abcdef-other"
)

// A keyed reader uses only rows carrying a valid MAC under its key: a
// row sealed without a key, under another key, or with its MAC forged is
// absent to it (not corrupt: the file is read again), counted, and
// replaced when it may write; left as it is when it only reads. A reader
// without the key can only check the checksum, and takes them all.
func TestKeyedReaderUsesOnlyVerifiedRows(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			e.open(t)
			team, other := testKey(t, teamSecret), testKey(t, otherSecret)
			ci := e.with(t, SharedOptions{Key: team})
			es := extracts(0, 4, "go")
			if err := ci.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			// Each planted row is sealed under its row's key, so its
			// checksum holds: only its MAC tells it from CI's.
			fake := []byte("a planted extraction")
			unkeyed := Seal(SealExtract, ExtractKeyBytes(es[0].ExtractKey), fake)
			otherKeys := SealKeyed(other, SealExtract, ExtractKeyBytes(es[1].ExtractKey), fake)
			// CI's key id and MAC over another payload, its checksum
			// computed again.
			real := SealKeyed(team, SealExtract, ExtractKeyBytes(es[2].ExtractKey), es[2].Data)
			sum := sealSum(SealExtract, ExtractKeyBytes(es[2].ExtractKey), fake)
			forged := append([]byte(sealMagic2), SealExtract)
			forged = append(append(append(forged, sum[:]...), real[sealHeader:sealHeader2]...), fake...)
			for i, blob := range [][]byte{unkeyed, otherKeys, forged} {
				e.exec(t, `UPDATE {extracts} SET data = ? WHERE sha256 = ?`, blob, es[i].SHA256[:])
			}

			laptop := e.with(t, SharedOptions{})
			got, corrupt := getAll(t, laptop, keysOf(es))
			if len(got) != 4 || len(corrupt) != 0 || !bytes.Equal(got[es[0].ExtractKey], fake) {
				t.Errorf("a reader without the key: %d rows, corrupt %q; want all 4 taken (it can only check checksums)", len(got), corrupt)
			}

			reader := e.with(t, SharedOptions{Key: team, Mode: ReadOnly})
			got, corrupt = getAll(t, reader, keysOf(es))
			if len(got) != 1 || !bytes.Equal(got[es[3].ExtractKey], es[3].Data) || len(corrupt) != 0 {
				t.Errorf("a keyed reader: %d rows, corrupt %q; want only CI's row, the others absent", len(got), corrupt)
			}
			n, first := SharedRejected(reader)
			if n != 3 || !strings.Contains(first, "no MAC") {
				t.Errorf("rejected %d, first %q; want 3, the first without a MAC", n, first)
			}
			if c := e.count(t, "extracts", ""); c != 4 {
				t.Errorf("a reader opened to read left %d rows, want the 4 it found", c)
			}
			if err := reader.PutExtracts(ctx, es); err != nil || e.count(t, "extracts", "") != 4 {
				t.Errorf("a reader opened to read wrote (%v)", err)
			}
			if _, err := reader.GC(ctx, 0); !errors.Is(err, errReadOnly) {
				t.Errorf("GC opened to read: %v, want it refused", err)
			}

			writer := e.with(t, SharedOptions{Key: team})
			if got, _ := getAll(t, writer, keysOf(es)); len(got) != 1 {
				t.Errorf("a keyed writer took %d rows, want 1", len(got))
			}
			if c := e.count(t, "extracts", ""); c != 1 {
				t.Errorf("a keyed writer left %d rows, want the 3 unverified ones removed", c)
			}
			if err := writer.PutExtracts(ctx, es); err != nil {
				t.Fatal(err)
			}
			if got, _ := getAll(t, e.with(t, SharedOptions{Key: team}), keysOf(es)); len(got) != 4 {
				t.Errorf("after the keyed writer put them again: %d verified rows, want 4", len(got))
			}
		})
	}
}

// A snapshot is used by a keyed reader only whole and verified: a planted
// index does not make it complete, and a planted row is not read as
// "no definitions" but makes the snapshot unused (and removed, whole,
// by a reader that may write).
func TestKeyedReaderRefusesPlantedSnapshots(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			ctx := context.Background()
			e.open(t)
			team := testKey(t, teamSecret)
			ci := e.with(t, SharedOptions{Key: team})
			gen, index, rows := snapshotOf(4, "k")
			if err := ci.PutSnapshot(ctx, gen, index, rows); err != nil {
				t.Fatal(err)
			}
			reader := e.with(t, SharedOptions{Key: team, Mode: ReadOnly})
			if ok, err := reader.HaveSnapshot(ctx, gen); !ok || err != nil {
				t.Fatalf("CI's snapshot: have %v (%v)", ok, err)
			}
			e.exec(t, `UPDATE {rows} SET data = ? WHERE gen = ? AND name = ?`, Seal(SealSnapshot, SnapshotKeyBytes(gen, "name0001"), []byte("nothing")), gen[:], "name0001")
			got, corrupt, err := reader.SnapshotRows(ctx, gen, []string{"name0000", "name0001"})
			if err != nil || len(corrupt) != 1 || !strings.Contains(corrupt[0], "no MAC") || got["name0001"] != nil {
				t.Errorf("a planted row: rows %d, corrupt %q, %v; want it described, never read as no definitions", len(got), corrupt, err)
			}
			if c := e.count(t, "rows", ""); c != 4 {
				t.Errorf("a reader opened to read left %d rows, want 4", c)
			}

			// An index planted for a tree CI never wrote (a generation
			// anyone can compute), with no rows.
			planted, _, _ := snapshotOf(0, "planted")
			e.exec(t, `INSERT INTO {snapshots}(gen, idx, rows, bytes, created, last_used) VALUES (?, ?, 0, 0, 0, 0)`, planted[:], Seal(SealIndex, SnapshotKeyBytes(planted, ""), []byte("x")))
			if ok, err := e.with(t, SharedOptions{}).HaveSnapshot(ctx, planted); !ok || err != nil {
				t.Errorf("a reader without the key: have %v (%v); want the planted snapshot taken, as documented", ok, err)
			}
			if ok, err := reader.HaveSnapshot(ctx, planted); ok || err != nil {
				t.Errorf("a keyed reader: have %v (%v), want the planted snapshot absent", ok, err)
			}
			writer := e.with(t, SharedOptions{Key: team})
			if _, corrupt, _ := writer.SnapshotRows(ctx, gen, []string{"name0001"}); len(corrupt) != 1 {
				t.Errorf("corrupt %q", corrupt)
			}
			if ok, _ := writer.HaveSnapshot(ctx, planted); ok {
				t.Error("the keyed writer took the planted snapshot")
			}
			if c := e.count(t, "rows", ""); c != 0 || e.count(t, "snapshots", "") != 0 {
				t.Errorf("a keyed writer left %d rows, %d snapshots; want both unverified snapshots removed whole", c, e.count(t, "snapshots", ""))
			}
			if err := writer.PutSnapshot(ctx, gen, index, rows); err != nil {
				t.Fatal(err)
			}
			if got, corrupt, err := reader.SnapshotRows(ctx, gen, []string{"name0000", "name0001"}); len(got) != 2 || len(corrupt) != 0 || err != nil {
				t.Errorf("written again: %d rows, corrupt %q, %v", len(got), corrupt, err)
			}
		})
	}
}

// A key file is refused when others may read it (as ssh refuses a
// private key), and a key shorter than 32 bytes is refused; no message
// and no print of a key shows its secret.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.key")
	if err := os.WriteFile(path, []byte(teamSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeyFile(path); err == nil || !strings.Contains(err.Error(), "0644 are too open") || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Errorf("a key file others may read: %v; want it refused, with the chmod to run", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := LoadKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if k.ID() != testKey(t, teamSecret).ID() {
		t.Error("the file's key (its final newline trimmed) differs from the same key given directly")
	}
	for _, shown := range []string{k.String(), fmt.Sprintf("%v %+v %#v %s", k, k, k, k)} {
		if strings.Contains(shown, "0123456789abcdef") {
			t.Errorf("a printed key shows its secret: %s", shown)
		}
	}
	if _, err := NewKey([]byte("short")); err == nil || strings.Contains(err.Error(), "short") || !strings.Contains(err.Error(), "openssl rand -hex 32") {
		t.Errorf("a short key: %v; want it refused without being shown, with how to make one", err)
	}
	if _, err := LoadKeyFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory as key file: %v", err)
	}
}

// UnsealKeyed tells apart a damaged row (ErrBadSeal, whatever the key)
// and a sound row without a valid MAC (IsUntrusted).
func TestUnsealKeyed(t *testing.T) {
	team, other := testKey(t, teamSecret), testKey(t, otherSecret)
	key, payload := []byte("key"), []byte("payload")
	sealed := SealKeyed(team, SealExtract, key, payload)
	if p, err := UnsealKeyed(team, SealExtract, key, sealed); err != nil || !bytes.Equal(p, payload) {
		t.Errorf("own key: %q %v", p, err)
	}
	if p, err := Unseal(SealExtract, key, sealed); err != nil || !bytes.Equal(p, payload) {
		t.Errorf("no key: %q %v; want the checksum checked only", p, err)
	}
	if _, err := UnsealKeyed(other, SealExtract, key, sealed); !IsUntrusted(err) || !strings.Contains(err.Error(), "another store key") {
		t.Errorf("another key: %v", err)
	}
	if _, err := UnsealKeyed(team, SealExtract, []byte("moved"), sealed); !errors.Is(err, ErrBadSeal) {
		t.Errorf("under another row's key: %v, want a bad seal", err)
	}
	damaged := bytes.Clone(sealed)
	damaged[len(damaged)-1] ^= 1
	if _, err := UnsealKeyed(team, SealExtract, key, damaged); !errors.Is(err, ErrBadSeal) {
		t.Errorf("damaged: %v", err)
	}
	macFlipped := bytes.Clone(sealed)
	macFlipped[sealHeader2-1] ^= 1
	if _, err := UnsealKeyed(team, SealExtract, key, macFlipped); !IsUntrusted(err) || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("MAC changed: %v", err)
	}
}

// BenchmarkSeal is the cost of a row's seal and of its check, with and
// without a key, for a row of the mean size of GOROOT/src's extractions
// (6.7 KiB, docs/store.md) and a token filter's (about 1 KiB).
func BenchmarkSeal(b *testing.B) {
	k, err := NewKey([]byte(teamSecret))
	if err != nil {
		b.Fatal(err)
	}
	key := ExtractKeyBytes(ExtractKey{Variant: "go", Format: 1})
	for _, size := range []int{1 << 10, 6860} {
		payload := bytes.Repeat([]byte{7}, size)
		for _, c := range []struct {
			name string
			k    *Key
		}{{"checksum", nil}, {"mac", k}} {
			sealed := SealKeyed(c.k, SealExtract, key, payload)
			b.Run(fmt.Sprintf("%s/%dB/seal", c.name, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					SealKeyed(c.k, SealExtract, key, payload)
				}
			})
			b.Run(fmt.Sprintf("%s/%dB/check", c.name, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if _, err := UnsealKeyed(c.k, SealExtract, key, sealed); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
