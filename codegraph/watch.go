package codegraph

// Suspect says the files at rels may have changed without their stamps
// showing it (another process rewrote them keeping size and mtime: cp -p,
// tar, rsync -t): the next Update reads them again and parses those whose
// content differs. Files the index does not know are left to Update's
// walk.
func (x *Index) Suspect(rels []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, rel := range rels {
		if s, ok := x.stamps[rel]; ok {
			s.MTime = 0 // not trusted: hashed at the next Update
			x.stamps[rel] = s
		}
	}
}
