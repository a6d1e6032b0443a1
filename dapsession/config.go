package dapsession

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"cchub/workspace"
)

// Config is the "debug" part of the workspace's .cchub.json (the file
// lspmux reads for language servers):
//
//	{"debug": {"ttl": "10m", "max_ttl": "1h",
//	           "adapters": [{"name": "dlv", "command": "/opt/dlv/dlv"}]}}
//
// An adapter named like a built-in one changes the fields it gives;
// another name adds one (language, command and args required).
type Config struct {
	TTL      time.Duration
	MaxTTL   time.Duration
	Adapters []Adapter
}

// LoadConfig reads the workspace's debug configuration over the
// defaults: a 10 minute limit, an hour at most, the built-in adapters.
func LoadConfig(root *workspace.Root) (Config, error) {
	c := Config{TTL: 10 * time.Minute, MaxTTL: time.Hour, Adapters: Builtin()}
	data, err := root.ReadText(".cchub.json")
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("dapsession: .cchub.json: %w", err)
	}
	var f struct {
		Debug struct {
			TTL      string `json:"ttl"`
			MaxTTL   string `json:"max_ttl"`
			Adapters []struct {
				Name, Language, Command string
				Args                    []string
			} `json:"adapters"`
		} `json:"debug"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return c, fmt.Errorf("dapsession: .cchub.json is not valid: %w", err)
	}
	for _, d := range []struct {
		text string
		to   *time.Duration
		name string
	}{{f.Debug.TTL, &c.TTL, "debug.ttl"}, {f.Debug.MaxTTL, &c.MaxTTL, "debug.max_ttl"}} {
		if d.text == "" {
			continue
		}
		v, err := time.ParseDuration(d.text)
		if err != nil || v <= 0 {
			return c, fmt.Errorf("dapsession: .cchub.json: %s %q is not a duration like \"10m\"", d.name, d.text)
		}
		*d.to = v
	}
	c.TTL = min(c.TTL, c.MaxTTL)
	for _, a := range f.Debug.Adapters {
		found := false
		for i := range c.Adapters {
			if c.Adapters[i].Name == a.Name {
				found = true
				if a.Command != "" {
					c.Adapters[i].Command = a.Command
				}
				if a.Args != nil {
					c.Adapters[i].Args = a.Args
				}
				if a.Language != "" {
					c.Adapters[i].Language = a.Language
				}
			}
		}
		if !found {
			if a.Name == "" || a.Language == "" || a.Command == "" {
				return c, fmt.Errorf("dapsession: .cchub.json: debug adapter %q needs name, language and command", a.Name)
			}
			c.Adapters = append(c.Adapters, Adapter{Name: a.Name, Language: a.Language, Command: a.Command, Args: a.Args, Install: "see .cchub.json"})
		}
	}
	return c, nil
}
