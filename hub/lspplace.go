package hub

import (
	"context"
	"crypto/sha256"

	"cchub/lspmux"
	"cchub/textfmt"
)

// checkPlace looks at q's place in rel (lspmux.Place): nil when it may be
// asked about, else an error naming the place meant and the call to make.
// note is set when the place is asked about in a file changed since the
// run read it. Once told where things are now, the run's places are the
// file's as it is now.
func (h *Hub) checkPlace(ctx context.Context, q LSPQuery, rel string, line, col int) (note string, err error) {
	data, rerr := h.Root.ReadText(rel)
	if rerr != nil {
		return "", nil // the server's own read says what is wrong
	}
	p := h.place(ctx, q, rel, line, col, data)
	p.ColGiven = q.Col >= 1
	if p.Changed {
		if old, ok := q.Run.Seen.Text(rel); ok {
			p.LinesRead = textfmt.SplitLines(old)
		}
	}
	p.Told = q.Run.placesToldFor(rel, data)
	note, err = p.Check()
	if err != nil && p.Changed {
		q.Run.toldPlaces(rel, data)
	}
	return note, err
}

// noIdentifier turns a server's "no identifier" at a place into the
// names on that line and the call that asks about one.
func (h *Hub) noIdentifier(ctx context.Context, q LSPQuery, rel string, line, col int, err error) error {
	data, rerr := h.Root.ReadText(rel)
	if rerr != nil {
		return err
	}
	p := h.place(ctx, q, rel, line, col, data)
	named := p.NoName(err)
	if named == nil {
		return err
	}
	if p.Changed {
		q.Run.toldPlaces(rel, data)
	}
	return named
}

// place is q's place in rel as the file is now (data), and whether q's
// run read it with other content.
func (h *Hub) place(ctx context.Context, q LSPQuery, rel string, line, col int, data []byte) *lspmux.Place {
	p := &lspmux.Place{
		Query: lspmux.Query{Op: q.Op, Path: rel, Line: line, Col: col, NewName: q.NewName},
		Lines: textfmt.SplitLines(string(data)),
		SymbolLine: func(name string) int {
			l, _, err := h.symbolPosition(ctx, rel, name)
			if err != nil {
				return 0
			}
			return l
		},
	}
	if q.Run != nil {
		p.Changed = q.Run.Seen.Changed(rel, data)
	}
	return p
}

// toldPlaces records that r was told places in rel as its content is now
// (data): its next lines and columns in rel are taken as the file's now.
func (r *Run) toldPlaces(rel string, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.placesTold == nil {
		r.placesTold = map[string][32]byte{}
	}
	r.placesTold[rel] = sha256.Sum256(data)
}

// placesToldFor says whether r was told places in rel as data.
func (r *Run) placesToldFor(rel string, data []byte) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.placesTold[rel]
	return ok && h == sha256.Sum256(data)
}
