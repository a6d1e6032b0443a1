package hub

import (
	"cchub/dapsession"
	"cchub/lspmux"
	"cchub/workspace"
)

// ConfiguredPrograms says, a line each, what the workspace's .cchub.json
// would have cchub run once trusted: the language servers and debug
// adapters it adds or whose program it changes, as command lines. The
// file as read comes with it, so that what is trusted is exactly what was
// shown.
func ConfiguredPrograms(root *workspace.Root) (workspace.Config, []string, error) {
	file, err := root.ReadConfig()
	if err != nil || file.Data == nil {
		return file, nil, err
	}
	servers, err := lspmux.Programs(root, file.Data)
	if err != nil {
		return file, nil, err
	}
	adapters, err := dapsession.Programs(root, file.Data)
	if err != nil {
		return file, nil, err
	}
	return file, append(servers, adapters...), nil
}

// OwnCodeRunners says, a line each, which of cchub's own servers start
// only once the workspace is trusted, because they run code it holds.
func OwnCodeRunners() []string { return lspmux.NeedTrust() }
