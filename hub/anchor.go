package hub

import (
	"context"
	"fmt"
	"strings"

	"cchub/anchor"
	"cchub/textfmt"
)

// AnchorOutcome is a quote's place, or why it has none.
type AnchorOutcome struct {
	*anchor.Result
	// ModelNote says why the model tier was not tried, when it was not.
	ModelNote string `json:"model_note,omitempty"`
}

// Anchor places a quoted snippet on its lines (see anchor.Anchor). The
// model tier uses model: the endpoint from the environment first (when
// set), else the one given (an MCP client's sampling), else none.
func (h *Hub) Anchor(ctx context.Context, req anchor.Request, model anchor.Completer) (*AnchorOutcome, error) {
	ep, ok, err := anchor.EndpointFromEnv()
	if err != nil {
		return nil, err
	}
	o := anchor.Options{}
	switch {
	case ok:
		o.Model = ep
	case model != nil:
		o.Model = model
	}
	res, err := anchor.Anchor(ctx, h.Root, req, o)
	if err != nil {
		return nil, err
	}
	out := &AnchorOutcome{Result: res}
	if !res.Anchored && o.Model == nil {
		out.ModelNote = "no model tier: set CCHUB_ANCHOR_LLM_URL and CCHUB_ANCHOR_LLM_MODEL (an OpenAI-compatible endpoint), or use a client that offers MCP sampling"
	}
	return out, nil
}

// Text is the answer for a model or a person: the tier and the place with
// its lines, or why it is unplaced and the candidates.
func (o *AnchorOutcome) Text() string {
	var b strings.Builder
	r := o.Result
	if r.Anchored {
		fmt.Fprintf(&b, "anchored (%s): %s\n", r.Tier, textfmt.Place(r.Path, r.StartLine, r.EndLine))
		if r.MovedFrom != "" {
			fmt.Fprintf(&b, "moved: the snippet is not in %s but in %s\n", r.MovedFrom, r.Path)
		}
		if r.Tier == anchor.TierLLM {
			b.WriteString("the snippet was replaced by the lines the model chose:\n")
		}
		for i, l := range r.Lines {
			textfmt.WriteLine(&b, r.StartLine+i, l)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "unplaced: %s\n", r.Reason)
	for _, c := range r.Candidates {
		fmt.Fprintf(&b, "  %s\n", textfmt.Place(c.Path, c.StartLine, c.EndLine))
	}
	if o.ModelNote != "" && len(r.Candidates) == 0 {
		fmt.Fprintf(&b, "(%s)\n", o.ModelNote)
	}
	return b.String()
}
