package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"cchub/trust"
)

// ConfigFile is the workspace's own configuration of cchub, at its root:
// language servers, debug adapters, time limits.
const ConfigFile = ".cchub.json"

// Config is ConfigFile as read, with whether a person trusts it. A
// repository is input like any file: what its configuration names to run
// (a server's or an adapter's command, args, env, added servers) is obeyed
// only once a person has trusted the workspace with exactly this content
// (cchub trust); its other settings apply either way.
type Config struct {
	// Data is the file's content; nil when there is no file.
	Data []byte
	// Trusted says a person trusted the workspace with exactly Data.
	Trusted bool
	// Why says, when not Trusted, why not: never trusted, changed since,
	// or the trust record could not be read.
	Why string
}

// ReadConfig reads ConfigFile (through the root, so a link out of it is
// refused) and looks its content up in the person's trust records.
func (r *Root) ReadConfig() (Config, error) {
	data, err := r.ReadText(ConfigFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return Config{}, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	c := Config{Data: data}
	ok, err := trust.Trusted(r.Dir(), data)
	switch {
	case err != nil:
		c.Why = "the trust records could not be read (" + err.Error() + ")"
	case ok:
		c.Trusted = true
	default:
		if e, was, _ := trust.Recorded(r.Dir()); was && e.SHA256 != trust.Hash(data) {
			c.Why = ConfigFile + " changed since it was trusted"
		} else {
			c.Why = "this workspace is not trusted"
		}
	}
	return c, nil
}

// SkippedNote says, in one line, what an untrusted configuration named to
// run and cchub ignored, and how a person trusts it. "" when nothing was
// skipped.
func (c Config) SkippedNote(skipped []string) string {
	if c.Trusted || len(skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("%s names programs to run (%s), which cchub ignored: %s; its other settings apply. A person who has read it can trust it, at a terminal: cchub trust",
		ConfigFile, strings.Join(skipped, ", "), c.Why)
}
