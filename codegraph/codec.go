package codegraph

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"sync"
)

// extractVersion is bumped whenever what extract reads from a tree
// changes other than through the query files (which are part of the
// format by their content): an index stored by another version is read
// again rather than trusted.
const extractVersion = 10

// Format identifies the encoding and extraction of stored files.
var Format = func() int {
	h := crc32.NewIEEE()
	fmt.Fprintf(h, "codec 2 extract %d\n", extractVersion)
	names, _ := fs.Glob(queryFiles, "queries/*.scm")
	for _, n := range names {
		b, _ := queryFiles.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return int(h.Sum32() & 0x7fffffff)
}()

// encode writes f compactly: a table of its strings, then definitions,
// calls and imports as varints that index the table. The path is the
// store's key and is not written.
func encode(f *File) []byte {
	idx := map[string]uint64{}
	var strs []string
	str := func(s string) uint64 {
		i, ok := idx[s]
		if !ok {
			i = uint64(len(strs))
			idx[s] = i
			strs = append(strs, s)
		}
		return i
	}
	var body []byte
	u := func(v uint64) { body = binary.AppendUvarint(body, v) }
	u(str(f.Language))
	u(uint64(len(f.Defs)))
	for _, d := range f.Defs {
		u(str(d.Name))
		u(str(d.Type))
		u(str(d.Kind))
		u(str(d.recv))
		u(uint64(d.Start))
		u(uint64(d.End - d.Start))
		var flags uint64
		if d.Test {
			flags |= 1
		}
		u(flags)
	}
	u(uint64(len(f.Calls)))
	prev := 0
	for _, c := range f.Calls {
		u(str(c.Name))
		u(str(c.Qualifier))
		body = binary.AppendVarint(body, int64(c.Line-prev))
		prev = c.Line
		u(uint64(c.Col))
		u(uint64(c.In + 1))
		var flags uint64
		if c.Ref {
			flags |= 1
		}
		u(flags)
	}
	u(uint64(len(f.Imports)))
	for _, im := range f.Imports {
		u(str(im.Alias))
		u(str(im.Target))
	}
	u(uint64(len(f.Binds)))
	for _, bd := range f.Binds {
		u(uint64(bd.In + 1))
		u(uint64(bd.Kind))
		u(str(bd.Owner))
		u(str(bd.Name))
		u(str(bd.Expr))
	}
	out := binary.AppendUvarint(nil, uint64(len(strs)))
	for _, s := range strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, body...)
}

var errCorrupt = errors.New("codegraph: a stored file of the index is corrupt")

// What the index stores (extractions, snapshot rows and index) is
// compressed with DEFLATE at its fastest level when it is long enough to
// gain: it halves the store (Go's source tree: 27 MB of extractions and
// 27 MB of snapshot rows) for a few percent of an index's time. A short
// one is kept as it is (a compressor's reset costs more than it saves on
// the tens of thousands of rows of a few bytes). The first byte says
// which: packRaw or packDeflate.
const (
	packRaw     = 0
	packDeflate = 1
	packAtLeast = 256 // bytes: shorter ones are kept raw
)

var (
	deflaters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.BestSpeed)
		return w
	}}
	inflaters = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// maxUnpacked bounds what unpack inflates: stored bytes come from a
// database others write, and a row that inflates without end is corrupt,
// not a reason to fill memory.
const maxUnpacked = 256 << 20

// pack is raw as the store keeps it.
func pack(raw []byte) []byte {
	if len(raw) < packAtLeast {
		return append([]byte{packRaw}, raw...)
	}
	var buf bytes.Buffer
	buf.Grow(len(raw)/2 + 64)
	buf.WriteByte(packDeflate)
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&buf)
	w.Write(raw) // a bytes.Buffer does not fail
	w.Close()
	deflaters.Put(w)
	return buf.Bytes()
}

// unpack reads what pack wrote; anything else is errCorrupt.
func unpack(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errCorrupt
	}
	switch b[0] {
	case packRaw:
		return b[1:], nil
	case packDeflate:
	default:
		return nil, errCorrupt
	}
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b[1:]), nil); err != nil {
		return nil, errCorrupt
	}
	out, err := io.ReadAll(io.LimitReader(r, maxUnpacked+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	if len(out) > maxUnpacked {
		return nil, fmt.Errorf("%w: it inflates past %d bytes", errCorrupt, maxUnpacked)
	}
	return out, nil
}

// stored is f as the store keeps it.
func stored(f *File) []byte { return pack(encode(f)) }

// fromStore reads what stored wrote, for the file at rel (decode).
func fromStore(rel string, b []byte, intern map[string]string) (*File, error) {
	raw, err := unpack(b)
	if err != nil {
		return nil, err
	}
	return decode(rel, raw, intern)
}

// decode reads what encode wrote, for the file at rel. Strings equal to
// ones already in intern are shared with them. Bad bytes are an error,
// never a panic.
func decode(rel string, b []byte, intern map[string]string) (*File, error) {
	d := decoder{b: b}
	n := d.count(1)
	strs := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		l := d.count(1)
		if d.err != nil {
			break
		}
		raw := d.b[:l]
		s, ok := intern[string(raw)]
		if !ok {
			s = string(raw)
			if intern != nil {
				intern[s] = s
			}
		}
		strs = append(strs, s)
		d.b = d.b[l:]
	}
	str := func() string {
		i := d.uvarint()
		if i >= uint64(len(strs)) {
			d.fail()
			return ""
		}
		return strs[i]
	}
	f := &File{Path: rel, Language: str()}
	if n := d.count(6); n > 0 {
		f.Defs = make([]Def, n)
	}
	for i := range f.Defs {
		def := &f.Defs[i]
		def.Path, def.Language = rel, f.Language
		def.Name, def.Type, def.Kind, def.recv = str(), str(), str(), str()
		def.Start = d.int()
		def.End = def.Start + d.int()
		def.Test = d.uvarint()&1 != 0
	}
	if n := d.count(6); n > 0 {
		f.Calls = make([]Call, n)
	}
	line := 0
	for i := range f.Calls {
		c := &f.Calls[i]
		c.Name, c.Qualifier = str(), str()
		line += int(d.varint())
		c.Line = line
		c.Col = d.int()
		c.In = d.int() - 1
		c.Ref = d.uvarint()&1 != 0
		if c.In >= len(f.Defs) {
			d.fail()
		}
	}
	if n := d.count(2); n > 0 {
		f.Imports = make([]Import, n)
	}
	for i := range f.Imports {
		f.Imports[i].Alias, f.Imports[i].Target = str(), str()
	}
	if n := d.count(5); n > 0 {
		f.Binds = make([]Bind, n)
	}
	for i := range f.Binds {
		bd := &f.Binds[i]
		bd.In = d.int() - 1
		k := d.uvarint()
		bd.Owner, bd.Name, bd.Expr = str(), str(), str()
		if bd.In >= len(f.Defs) || k > 0x7f {
			d.fail()
		}
		bd.Kind = byte(k)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w (%s); run cchub index again to read it afresh", d.err, rel)
	}
	return f, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int reads a count or a line: at most a billion.
func (d *decoder) int() int {
	v := d.uvarint()
	if v > 1<<30 {
		d.fail()
		return 0
	}
	return int(v)
}

// count reads how many items follow, each at least min bytes long: a
// count the remaining bytes cannot hold is corrupt (and is not allocated).
func (d *decoder) count(min int) int {
	v := d.uvarint()
	if v > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(v)
}
