package codegraph

// Suspect says the files at rels may have changed (the hub's watcher saw
// another process write them): the next Update reads them again, whatever
// their Identity says, and parses those whose content differs. It only
// withholds trust, never grants it: workspace.Identity already tells a
// rewrite that kept size and mtime (cp -p, tar, rsync -t) by its ctime,
// and the watcher's word is a second witness. Files the index does not
// know are left to Update's walk.
func (x *Index) Suspect(rels []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, rel := range rels {
		if s, ok := x.stamps[rel]; ok {
			s.MTime = 0 // unknown: hashed at the next Update
			x.stamps[rel] = s
		}
	}
}
