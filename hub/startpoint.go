package hub

import (
	"encoding/json"

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
//
// A named run's separate CLI calls share it: it is kept in the store
// (encode, decode), loaded by the run's first change in a process and
// saved after each change that added to it.
type startPoint struct {
	servers map[string]bool               // servers whose first state is kept
	files   map[string]map[ledger.Key]int // copies of each key, by file
	caused  map[ledger.Key]bool           // what the run's changes caused
	loaded  bool                          // a named run's kept one was read
	changed bool                          // it grew since it was read or kept
}

// see keeps what of rep's settled states is news to the starting point,
// and what the change caused; r.mu is held.
func (p *startPoint) see(rep *lspmux.Report) {
	p.init()
	for _, st := range rep.Before {
		if !p.servers[st.Server] || len(st.Opened) > 0 {
			p.changed = true
		}
	}
	for _, ds := range rep.New {
		if len(ds) > 0 {
			p.changed = true
		}
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

func (p *startPoint) init() {
	if p.servers == nil {
		p.servers, p.files, p.caused = map[string]bool{}, map[string]map[ledger.Key]int{}, map[ledger.Key]bool{}
	}
}

// keptStart is a starting point as a named run keeps it in the store.
type keptStart struct {
	Servers []string             `json:"servers"`
	Files   map[string][]keptKey `json:"files"`
	Caused  []ledger.Key         `json:"caused,omitempty"`
}

type keptKey struct {
	ledger.Key
	Count int `json:"count"`
}

// encode is p as a named run keeps it.
func (p *startPoint) encode() ([]byte, error) {
	k := keptStart{Files: map[string][]keptKey{}}
	for s := range p.servers {
		k.Servers = append(k.Servers, s)
	}
	for path, counts := range p.files {
		list := []keptKey{}
		for key, n := range counts {
			list = append(list, keptKey{key, n})
		}
		k.Files[path] = list
	}
	for key := range p.caused {
		k.Caused = append(k.Caused, key)
	}
	return json.Marshal(k)
}

// decode sets p to what data, from encode, holds.
func (p *startPoint) decode(data []byte) error {
	var k keptStart
	if err := json.Unmarshal(data, &k); err != nil {
		return err
	}
	p.servers, p.files, p.caused = nil, nil, nil
	p.init()
	for _, s := range k.Servers {
		p.servers[s] = true
	}
	for path, list := range k.Files {
		counts := map[ledger.Key]int{}
		for _, kk := range list {
			counts[kk.Key] = kk.Count
		}
		p.files[path] = counts
	}
	for _, key := range k.Caused {
		p.caused[key] = true
	}
	return nil
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
