package anchor

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// maxModelLines bounds the file text sent to the model in working-tree
// mode: a larger file is not sent (the tier is skipped) rather than cut,
// since a cut file may not hold the lines meant.
const maxModelLines = 3000

// askModel is tier 3: the model sees the named file's diff (in a working
// tree, its text), the quote and the comment, and copies the lines it
// meant; those must then match exactly once in the named file, like a
// quote of tier 1. Any failure (no answer, no code block, lines that do
// not match, or match twice) leaves the quote unplaced, with the
// request's snippet: never a guess.
func (s *source) askModel(ctx context.Context, m Completer, rel string, req Request, own []region) (*Result, bool, error) {
	text := s.modelText(rel, own)
	if text == "" {
		return nil, false, nil
	}
	res := &Result{Snippet: req.Snippet, Mode: s.mode()}
	answer, err := m.Complete(ctx, BuildMessages(rel, text, req.Snippet, req.Comment))
	if errors.Is(err, ErrDeferred) || ctx.Err() != nil {
		return nil, false, err
	}
	if err != nil {
		res.Reason = fmt.Sprintf("not in %s as quoted, nor anywhere else; the model could not be asked: %v", rel, err)
		return res, true, nil
	}
	code, ok := FirstFence(answer)
	if !ok || len(quoteLines(code)) == 0 {
		res.Reason = fmt.Sprintf("not in %s as quoted, nor anywhere else; the model's answer named no lines", rel)
		return res, true, nil
	}
	hits := find(quoteLines(code), own)
	switch len(hits) {
	case 1:
		h := hits[0]
		res.Anchored, res.Tier, res.Path, res.StartLine, res.EndLine = true, TierLLM, h.path, h.start, h.end
		res.Lines = append([]string(nil), h.lines...)
		res.Snippet = strings.Join(h.lines, "\n")
	case 0:
		res.Reason = fmt.Sprintf("not in %s as quoted, nor anywhere else; the lines the model chose are not in it either", rel)
	default:
		res.Reason = fmt.Sprintf("not in %s as quoted, nor anywhere else; the lines the model chose match %d places", rel, len(hits))
	}
	return res, true, nil
}

// ErrDeferred, wrapped in a Completer's error, ends Anchor with that error
// instead of an unplaced result: the model's answer comes with another
// call (an MCP client answers a server's sampling request that way).
var ErrDeferred = errors.New("the model's answer comes later")

// modelText is what the model is shown of rel: its diff, or in a working
// tree its text; "" when there is nothing to show.
func (s *source) modelText(rel string, own []region) string {
	if s.isDif {
		for _, f := range s.diff {
			if f.path == rel {
				return f.text
			}
		}
		return ""
	}
	if len(own) != 1 || len(own[0].lines) == 0 || len(own[0].lines) > maxModelLines {
		return ""
	}
	return strings.Join(own[0].lines, "\n") + "\n"
}
