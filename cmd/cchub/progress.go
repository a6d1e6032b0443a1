package main

import (
	"io"
	"os"
	"sync"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progress draws a bar of files done/total and the rate on a terminal;
// when w is not a terminal it draws nothing.
type progress struct {
	mu   sync.Mutex
	w    io.Writer
	what string
	bar  *progressbar.ProgressBar // made at the first Set
	off  bool
}

func newProgress(w io.Writer, what string) *progress {
	f, ok := w.(*os.File)
	off := !ok || !(isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
	return &progress{w: w, what: what, off: off}
}

// Set says done of total are done.
func (p *progress) Set(done, total int) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.what),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(p.unit()),
			progressbar.OptionThrottle(100_000_000),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetPredictTime(true),
		)
	}
	p.bar.Set(done)
}

// Phase says done of total are done of what, a new bar for each new what
// (the one before is cleared).
func (p *progress) Phase(what string, done, total int) {
	if p.off {
		return
	}
	p.mu.Lock()
	if what != p.what && p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
		p.bar = nil
	}
	p.what = what
	p.mu.Unlock()
	p.Set(done, total)
}

// Finish clears the bar, if one was drawn.
func (p *progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
}

// unit is what the bar counts.
func (p *progress) unit() string {
	if p.what == "saving the graph's snapshot" {
		return "names"
	}
	return "files"
}
