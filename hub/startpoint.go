package hub

import (
	"cchub/ledger"
	"cchub/lspmux"
)

// A run's starting point: what the servers had published when the run
// first looked, so that a problem present then, hidden for a while (an
// error that stops a server's other checks, a broken call that masks the
// errors behind it) and back again is told as back, never as new.
//
// A server's first settled state that the run is given (the state before
// the run's first change on it) is the starting point of every file it
// had published for, and of every other file clean. A file the server
// had not looked at then (gopls analyses only the packages of open
// files) has its starting point when a change first opens it, less what
// the run's own changes had caused by then.
type startPoint struct {
	servers map[string]bool               // servers whose first state is kept
	files   map[string]map[ledger.Key]int // copies of each key, by file
	caused  map[ledger.Key]bool           // what the run's changes caused
}

// see keeps what of rep's settled states is news to the starting point,
// and what the change caused; r.mu is held.
func (p *startPoint) see(rep *lspmux.Report) {
	if p.servers == nil {
		p.servers, p.files, p.caused = map[string]bool{}, map[string]map[ledger.Key]int{}, map[ledger.Key]bool{}
	}
	for _, st := range rep.Before {
		first := !p.servers[st.Server]
		p.servers[st.Server] = true
		for path, ds := range st.Files {
			if first {
				p.keep(path, ds, false)
			}
		}
		for _, path := range st.Opened {
			p.keep(path, st.Files[path], !first)
		}
	}
	for _, ds := range rep.New {
		for _, d := range ds {
			p.caused[keyOf(d)] = true
		}
	}
}

// keep records ds as path's starting point unless it has one; with
// lessCaused, what the run's changes caused is left out.
func (p *startPoint) keep(path string, ds []lspmux.Diagnostic, lessCaused bool) {
	if _, ok := p.files[path]; ok {
		return
	}
	counts := map[ledger.Key]int{}
	for _, d := range ds {
		k := keyOf(d)
		if lessCaused && p.caused[k] {
			continue
		}
		counts[k]++
	}
	p.files[path] = counts
}

// had is how many copies of k its file had at the starting point.
func (p *startPoint) had(k ledger.Key) int {
	return p.files[k.Path][k]
}

func keyOf(d lspmux.Diagnostic) ledger.Key {
	return ledger.Key{Path: d.Path, Severity: d.Severity, Code: d.Code, Message: d.Message}
}
