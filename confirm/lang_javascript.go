package confirm

import (
	"context"
	"strings"
	"time"

	"cchub/codegraph"
	"cchub/lspmux"
)

// tsEdge judges a TypeScript or JavaScript call whose definition is not
// the callee. Types are structural, so a method may be reached through
// any type of the same shape: only a plain function refutes.
func (c *confirmer) tsEdge(ctx context.Context, e codegraph.Edge, at func(string) (*lspmux.Answer, error)) (string, string) {
	sig, verdict, why, _ := c.implOrSignature(ctx, e, at)
	if verdict != "" || why != "" {
		return verdict, why
	}
	switch {
	case strings.HasPrefix(sig, "function "):
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "(method)") && e.Callee.Type == "":
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "(method)"):
		return "", whyDispatch
	}
	return "", whyValue
}

// tsDefinition asks again, for up to tsLoadWait the first time (once
// after that), for the definition at a call site that had none (def)
// though hover knows the name there: tsserver loads its project after it
// answers, and until then a name from another file has no definition. why is set when a question failed or
// time ran out.
func (c *confirmer) tsDefinition(ctx context.Context, e codegraph.Edge, def *lspmux.Answer, at func(string) (*lspmux.Answer, error)) (_ *lspmux.Answer, why string) {
	hv, err := at("hover")
	if err != nil || hv.Text == "" {
		return def, ""
	}
	c.mu.Lock()
	limit := tsLoadWait
	if c.tsWaited {
		limit = 250 * time.Millisecond
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.tsWaited = true
		c.mu.Unlock()
	}()
	deadline := time.Now().Add(limit)
	for wait := 250 * time.Millisecond; time.Now().Before(deadline); wait = min(2*wait, time.Second) {
		select {
		case <-ctx.Done():
			return nil, errOutOfTime
		case <-time.After(wait):
		}
		if def, err = at("definition"); err != nil {
			return nil, c.why(ctx, e.Path, err)
		}
		if len(def.Locations)+len(def.Outside) > 0 {
			break
		}
	}
	return def, ""
}

// tsLoadWait bounds tsDefinition's asking again: tsserver loads a small
// project in a second, a large one (or a loaded machine) in several.
const tsLoadWait = 8 * time.Second
