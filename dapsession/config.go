package dapsession

import (
	"encoding/json"
	"fmt"
	"time"

	"cchub/lang"
	"cchub/proc"
	"cchub/workspace"
)

// Config is the "debug" part of the workspace's .cchub.json (the file
// lspmux reads for language servers):
//
//	{"debug": {"ttl": "10m", "max_ttl": "1h",
//	           "adapters": [{"name": "dlv", "command": "/opt/dlv/dlv"}]}}
//
// An adapter named like a built-in one changes the fields it gives;
// another name adds one (language, command and args required). Adapters
// name programs, so they apply only in a workspace a person trusted (cchub
// trust); elsewhere they are skipped and Note says so. The time limits
// apply either way.
type Config struct {
	TTL      time.Duration
	MaxTTL   time.Duration
	Adapters []Adapter
	// Note says what an untrusted .cchub.json named to run and was
	// skipped; "" when nothing was.
	Note string
}

// LoadConfig reads the workspace's debug configuration over the
// defaults: a 10 minute limit, an hour at most, the built-in adapters.
func LoadConfig(root *workspace.Root) (Config, error) {
	c := Config{TTL: 10 * time.Minute, MaxTTL: time.Hour, Adapters: Builtin()}
	file, err := root.ReadConfig()
	if err != nil {
		return c, fmt.Errorf("dapsession: %w", err)
	}
	return applyConfig(file, c)
}

// Programs says, a line each, what the debug adapters of data would run if
// the workspace were trusted: each adapter it adds or changes, as its
// command line. Nothing when it names none.
func Programs(root *workspace.Root, data []byte) ([]string, error) {
	c, err := applyConfig(workspace.Config{Data: data, Trusted: true}, Config{TTL: 10 * time.Minute, MaxTTL: time.Hour, Adapters: Builtin()})
	if err != nil {
		return nil, err
	}
	var f struct {
		Debug struct {
			Adapters []struct{ Name string } `json:"adapters"`
		} `json:"debug"`
	}
	json.Unmarshal(data, &f) // applyConfig read it
	var out []string
	for _, named := range f.Debug.Adapters {
		for _, a := range c.Adapters {
			if a.Name != named.Name {
				continue
			}
			line := "debug adapter " + a.Name + ": " + proc.CommandLine(a.Command, a.Args)
			if bin, err := root.LookTool(a.Command); err == nil {
				line += " (" + bin + ")"
			} else {
				line += " (not found now)"
			}
			out = append(out, line)
		}
	}
	return out, nil
}

// applyConfig is LoadConfig on a file already read, over c.
func applyConfig(file workspace.Config, c Config) (Config, error) {
	if file.Data == nil {
		return c, nil
	}
	data := file.Data
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
	if !file.Trusted {
		var skipped []string
		for _, a := range f.Debug.Adapters {
			skipped = append(skipped, "debug.adapters["+a.Name+"]")
		}
		c.Note = file.SkippedNote(skipped)
		return c, nil
	}
	for _, a := range f.Debug.Adapters {
		if l := lang.ByName(a.Language); l != nil {
			a.Language = l.Name // "py" debugs what a launch of python asks for
		}
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
