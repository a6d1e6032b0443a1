package tokenindex

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"strconv"

	"cchub/store"
	"cchub/workspace"
)

// The pack is a copy of the token index in one file of the state
// directory, written by Update after the store: the trusted entries of
// one generation, one after another. A question reads it front to back
// through a small buffer, with nothing per entry but the path of a file
// that lacks the literals: GOROOT/src's 9 MB are read in a few
// milliseconds and add no more than the buffer to the process's memory,
// where the database's driver copies every row out (40 ms, and
// megabytes of pages and garbage). The store stays the truth: a pack
// missing, damaged, or of another generation than the store's is not
// read, and the store is.
//
// Layout: the magic "cchubTP3", the generation (8 bytes, little-endian),
// then per file: uvarint path length, path, its workspace.Identity
// (varint size, varint mtime, varint ctime, uvarint inode, uvarint
// device), uvarint flags (1: the content parses cleanly, store.TokenFile.Clean),
// uvarint filter length, filter; then a zero path length; then the
// CRC-32C of every byte before it (4 bytes, little-endian). A pack of
// another magic (an older cchub's) is not one, and is written again.
const PackName = "tokens.pack"

const packMagic = "cchubTP3"

// Limits a reader holds the pack's lengths to: a longer path or filter is
// damage, not a file.
const (
	maxPackPath   = 1 << 12
	maxPackFilter = 2 + (1<<maxLog)/8
)

// ErrBadPack says the pack is not one: the store is read instead.
var ErrBadPack = errors.New("not a token index pack")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writePack writes the store's index, as of one generation, to the pack,
// unless the pack already holds that generation.
func writePack(ctx context.Context, root *workspace.Root, db *store.Store) error {
	gen, err := db.TokenGeneration(ctx)
	if err != nil {
		return err
	}
	dir, err := root.OpenStateDir("")
	if err != nil {
		return err
	}
	defer dir.Close()
	if have, err := packGeneration(dir); err == nil && have == gen {
		return nil
	}
	tmp := PackName + ".new-" + strconv.Itoa(os.Getpid())
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer dir.Remove(tmp) // once renamed, there is nothing to remove
	var pw *packWriter
	err = db.TokenSnapshot(ctx, func(gen int64) error {
		pw = newPackWriter(f, gen)
		return nil
	}, func(t store.TokenFile) error {
		if !t.Identity.Known() || len(t.Path) == 0 || len(t.Path) > maxPackPath || !decodes(t.Filter) {
			return nil // read again each time, as from the store
		}
		return pw.add(t.Path, t.Identity, t.Filter, t.Clean == store.ParsesClean)
	})
	if err == nil {
		err = pw.close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return dir.Rename(tmp, PackName)
}

// packWriter writes a pack.
type packWriter struct {
	out io.Writer
	w   *bufio.Writer
	sum hash.Hash32
	num [binary.MaxVarintLen64]byte
}

// newPackWriter begins a pack of generation gen on out.
func newPackWriter(out io.Writer, gen int64) *packWriter {
	p := &packWriter{out: out, sum: crc32.New(castagnoli)}
	p.w = bufio.NewWriterSize(io.MultiWriter(out, p.sum), 256<<10)
	p.w.WriteString(packMagic)
	binary.LittleEndian.PutUint64(p.num[:8], uint64(gen))
	p.w.Write(p.num[:8])
	return p
}

// add writes one file's entry; filter is its encoded filter, clean
// whether its content parses cleanly.
func (p *packWriter) add(path string, id workspace.Identity, filter []byte, clean bool) error {
	p.w.Write(p.num[:binary.PutUvarint(p.num[:], uint64(len(path)))])
	p.w.WriteString(path)
	p.w.Write(p.num[:binary.PutVarint(p.num[:], id.Size)])
	p.w.Write(p.num[:binary.PutVarint(p.num[:], id.MTime)])
	p.w.Write(p.num[:binary.PutVarint(p.num[:], id.CTime)])
	p.w.Write(p.num[:binary.PutUvarint(p.num[:], id.Inode)])
	p.w.Write(p.num[:binary.PutUvarint(p.num[:], id.Dev)])
	var flags uint64
	if clean {
		flags = 1
	}
	p.w.Write(p.num[:binary.PutUvarint(p.num[:], flags)])
	p.w.Write(p.num[:binary.PutUvarint(p.num[:], uint64(len(filter)))])
	_, err := p.w.Write(filter) // a bufio.Writer keeps its first error
	return err
}

// close ends the pack: the terminator, then the checksum of all before.
func (p *packWriter) close() error {
	p.w.WriteByte(0)
	if err := p.w.Flush(); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(p.num[:4], p.sum.Sum32())
	_, err := p.out.Write(p.num[:4])
	return err
}

// packGeneration is the generation of the pack in dir.
func packGeneration(dir *os.Root) (int64, error) {
	f, err := dir.Open(PackName)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var head [len(packMagic) + 8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:len(packMagic)]) != packMagic {
		return 0, ErrBadPack
	}
	return int64(binary.LittleEndian.Uint64(head[len(packMagic):])), nil
}

// eachPacked calls fn with every entry of the pack in the state
// directory when it is of generation gen; false when it is not (missing,
// of another generation). fn's answers are the caller's to drop when it
// returns an error: the pack was damaged, and only its end says so. path
// and flt are fn's only during the call.
func eachPacked(ctx context.Context, root *workspace.Root, gen int64, fn func(path []byte, id workspace.Identity, flt Filter, clean bool)) (bool, error) {
	dir, err := root.OpenStateDir("")
	if err != nil {
		return false, nil
	}
	defer dir.Close()
	f, err := dir.Open(PackName)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	return readPack(ctx, f, gen, fn)
}

// readPack reads a pack from r (see eachPacked).
func readPack(ctx context.Context, r io.Reader, gen int64, fn func(path []byte, id workspace.Identity, flt Filter, clean bool)) (bool, error) {
	p := &packReader{r: r, buf: make([]byte, 64<<10)}
	head, ok := p.next(len(packMagic) + 8)
	if !ok || string(head[:len(packMagic)]) != packMagic {
		return true, fmt.Errorf("%w: no header", ErrBadPack)
	}
	if int64(binary.LittleEndian.Uint64(head[len(packMagic):])) != gen {
		return false, nil
	}
	var name []byte
	for n := 0; ; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return true, err
			}
		}
		plen, err := binary.ReadUvarint(p)
		if err != nil || plen > maxPackPath {
			return true, fmt.Errorf("%w: entry %d's path", ErrBadPack, n)
		}
		if plen == 0 {
			break
		}
		path, ok := p.next(int(plen))
		if !ok {
			return true, fmt.Errorf("%w: entry %d's path", ErrBadPack, n)
		}
		name = append(name[:0], path...) // p's buffer moves on
		var id workspace.Identity
		var flags, flen uint64
		var errs [7]error
		id.Size, errs[0] = binary.ReadVarint(p)
		id.MTime, errs[1] = binary.ReadVarint(p)
		id.CTime, errs[2] = binary.ReadVarint(p)
		id.Inode, errs[3] = binary.ReadUvarint(p)
		id.Dev, errs[4] = binary.ReadUvarint(p)
		flags, errs[5] = binary.ReadUvarint(p)
		flen, errs[6] = binary.ReadUvarint(p)
		if err := errors.Join(errs[:]...); err != nil || flags > 1 || flen > maxPackFilter {
			return true, fmt.Errorf("%w: entry %d", ErrBadPack, n)
		}
		b, ok := p.next(int(flen))
		if !ok {
			return true, fmt.Errorf("%w: entry %d's filter", ErrBadPack, n)
		}
		flt, err := Decode(b)
		if err != nil {
			return true, fmt.Errorf("%w: entry %d: %v", ErrBadPack, n, err)
		}
		fn(name, id, flt, flags == 1)
	}
	want := p.summed()
	tail, ok := p.next(4)
	if !ok || binary.LittleEndian.Uint32(tail) != want {
		return true, fmt.Errorf("%w: its checksum does not match", ErrBadPack)
	}
	if _, err := p.ReadByte(); err == nil {
		return true, fmt.Errorf("%w: bytes after its checksum", ErrBadPack)
	}
	return true, nil
}

// packReader reads a pack through one buffer, summing the bytes it hands
// out.
type packReader struct {
	r        io.Reader
	buf      []byte
	pos, end int
	hashed   int // buf[:hashed] is in sum
	sum      uint32
	eof      bool
}

// summed is the CRC of every byte handed out so far.
func (p *packReader) summed() uint32 {
	p.sum = crc32.Update(p.sum, castagnoli, p.buf[p.hashed:p.pos])
	p.hashed = p.pos
	return p.sum
}

// fill makes room and reads more; false at the end of r.
func (p *packReader) fill(need int) bool {
	if p.eof {
		return false
	}
	p.summed()
	copy(p.buf, p.buf[p.pos:p.end])
	p.end -= p.pos
	p.pos, p.hashed = 0, 0
	if need > len(p.buf) {
		p.buf = append(p.buf, make([]byte, need-len(p.buf))...)
	}
	n, err := io.ReadAtLeast(p.r, p.buf[p.end:], 1)
	p.end += n
	if err != nil {
		p.eof = true
	}
	return n > 0
}

// ReadByte is io.ByteReader, for the varints.
func (p *packReader) ReadByte() (byte, error) {
	if p.pos == p.end && !p.fill(1) {
		return 0, io.ErrUnexpectedEOF
	}
	b := p.buf[p.pos]
	p.pos++
	return b, nil
}

// next hands out the next n bytes, valid until the next call.
func (p *packReader) next(n int) ([]byte, bool) {
	for p.end-p.pos < n {
		if !p.fill(n) {
			return nil, false
		}
	}
	b := p.buf[p.pos : p.pos+n]
	p.pos += n
	return b, true
}
