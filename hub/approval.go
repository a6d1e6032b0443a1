package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Approval says who may accept a staged change.
type Approval string

const (
	// ApproveHuman: only a person, with `cchub review ID` or `cchub apply
	// ID` (or a client that asks its user through MCP elicitation).
	ApproveHuman Approval = "human"
	// ApproveAgent: the agent may accept its own changes with resolve.
	ApproveAgent Approval = "agent"
)

// ParseApproval reads an approval policy by name; "" is human.
func ParseApproval(s string) (Approval, error) {
	switch Approval(strings.ToLower(strings.TrimSpace(s))) {
	case "", ApproveHuman:
		return ApproveHuman, nil
	case ApproveAgent:
		return ApproveAgent, nil
	}
	return "", fmt.Errorf("approval %q: use human (only a person applies staged changes) or agent (the agent may apply them)", s)
}

// errNeedsHuman is the resolve tool's answer to "accept" under the human
// policy, when the client cannot ask its user.
var errNeedsHuman = errors.New("a person must approve")

// Asker asks the user of an agent's client to approve: ok is the answer,
// asked false when the client cannot ask. nil never asks. An Asker must
// count only an answer to a question it put to the user itself (the MCP
// one checks a token it issued), never one a caller merely claims.
type Asker func(ctx context.Context, message string) (ok, asked bool, err error)

// Resolution is what became of a pending change that was resolved.
type Resolution struct {
	ID string `json:"id"`
	// Outcome is "discarded", "declined" (the user did not approve; it
	// stays staged) or "applied".
	Outcome string          `json:"outcome"`
	Applied *AppliedOutcome `json:"applied,omitempty"`
}

// Text says what became of the change.
func (r *Resolution) Text() string {
	switch r.Outcome {
	case "discarded":
		return fmt.Sprintf("discarded %s; no file was changed.\n", r.ID)
	case "declined":
		return fmt.Sprintf("the user did not approve %s; it stays staged, nothing was written. Drop it with resolve action=discard id=%s, or stage another change.\n", r.ID, r.ID)
	}
	return r.Applied.Text()
}

// Resolve accepts or discards a pending change for an agent. Under the
// human policy an agent cannot accept: ask puts the question to the
// client's user where it can, and otherwise the answer says who must run
// what.
func (h *Hub) Resolve(ctx context.Context, id, action string, r *Run, ask Asker) (*Resolution, error) {
	switch action {
	case "discard":
		return h.Discard(ctx, id)
	case "accept":
	default:
		return nil, fmt.Errorf("action %q: use accept, discard, show or list", action)
	}
	if h.approval != ApproveAgent {
		s, err := h.StagedChange(ctx, id)
		if err != nil {
			return nil, err
		}
		ok, asked := false, false
		if ask != nil {
			ok, asked, err = ask(ctx, fmt.Sprintf("Apply %s: %s?\n%s", s.ID, s.Staged.EditsInFiles(), s.Title))
			if err != nil {
				return nil, err
			}
		}
		if !asked {
			return nil, fmt.Errorf("%w: run `cchub review %s` (or `cchub apply %s`) in a terminal in the workspace. This workspace's approval policy is human and this client cannot ask its user (it offers no MCP elicitation), so an agent cannot apply %s; the change stays staged until then", errNeedsHuman, id, id, id)
		}
		if !ok {
			return &Resolution{ID: id, Outcome: "declined"}, nil
		}
	}
	o, err := h.Apply(ctx, id, r)
	if err != nil {
		return nil, err
	}
	return &Resolution{ID: id, Outcome: "applied", Applied: o}, nil
}
