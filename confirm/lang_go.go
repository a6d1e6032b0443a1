package confirm

import (
	"context"
	"strings"

	"cchub/codegraph"
	"cchub/lspmux"
)

// goEdge judges a Go call whose definition is not the callee: through an
// interface, gopls knows every implementation; otherwise there is no
// dispatch, so another function or method is a refutation.
func (c *confirmer) goEdge(ctx context.Context, e codegraph.Edge, def *lspmux.Answer, at func(string) (*lspmux.Answer, error)) (string, string) {
	if len(def.Outside) == 0 {
		// In the workspace, the graph and the line say what the
		// definition is, without asking (implementation is gopls' most
		// costly question: it looks through every package).
		l := def.Locations[0]
		switch {
		case c.enclosing(l.Path, l.Line, "interface", "") != nil:
			impl, err := at("implementation")
			if err != nil {
				return "", c.why(ctx, e.Path, err)
			}
			if lands(impl.Locations, e.Callee) {
				return codegraph.Confirmed, ""
			}
			return codegraph.Refuted, ""
		case strings.HasPrefix(l.Text, "func ") && c.declares(l, e.Name):
			return codegraph.Refuted, ""
		}
		return "", whyValue
	}
	sig, verdict, why, implErr := c.implOrSignature(ctx, e, at)
	if verdict != "" || why != "" {
		return verdict, why
	}
	switch {
	case strings.HasPrefix(sig, "func ("):
		// A method, concrete or an interface's: the implementations
		// must be known before the callee can be ruled out.
		if implErr != nil {
			return "", c.why(ctx, e.Path, implErr)
		}
		return codegraph.Refuted, ""
	case strings.HasPrefix(sig, "func "):
		return codegraph.Refuted, ""
	}
	return "", whyValue
}
