package anchor

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chatAnswer is an OpenAI-style response carrying content.
func chatAnswer(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	return string(b)
}

// The model tier, against a local stand-in for the endpoint: only lines
// that then match the named file exactly once anchor; everything else
// leaves the quote unplaced with its own text.
func TestAnchorModelTier(t *testing.T) {
	root, _ := repo(t)
	// A paraphrase tiers 1 and 2 cannot place.
	req := Request{Path: "server.go", Snippet: "if the method is HEAD return early", Comment: "why return without a body?", Base: "HEAD"}
	for _, tc := range []struct {
		name     string
		respond  http.HandlerFunc
		timeout  time.Duration
		anchored bool
		reason   string
	}{
		{name: "good answer", respond: answerWith(200, chatAnswer("```go\n\tif r.Method == http.MethodHead {\n\t\treturn\n\t}\n```")), anchored: true},
		{name: "a language tag and stray text", respond: answerWith(200, chatAnswer("Here it is:\n~~~golang\nif r.Method == http.MethodHead {\n~~~\nHope this helps.")), anchored: true},
		{name: "no fence", respond: answerWith(200, chatAnswer("if r.Method == http.MethodHead {")), reason: "named no lines"},
		{name: "lines that are not in the file", respond: answerWith(200, chatAnswer("```\nif r.Method == \"HEAD\" {\n```")), reason: "are not in it either"},
		{name: "lines that match twice", respond: answerWith(200, chatAnswer("```\nreturn\n}\n```")), reason: "match 3 places"},
		{name: "HTTP error", respond: answerWith(500, `{"error":{"message":"overloaded"}}`), reason: "500"},
		{name: "timeout", respond: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, timeout: 300 * time.Millisecond, reason: "timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := standInEndpoint(t, tc.respond)
			ep := &Endpoint{URL: s.URL + "/v1", Model: "m", Timeout: tc.timeout}
			r, err := Anchor(context.Background(), root, req, Options{Model: ep})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(s.requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
			if body := s.requests()[0].Body; !strings.Contains(body, "why return without a body?") || !strings.Contains(body, "if the method is HEAD return early") || !strings.Contains(body, "+\\tif r.Method == http.MethodHead {") {
				t.Errorf("the request lacks the comment, the snippet or the diff:\n%s", body)
			}
			if r.Anchored != tc.anchored {
				t.Fatalf("%+v", r)
			}
			if tc.anchored {
				if r.Tier != TierLLM || r.StartLine != 11 || r.Snippet != strings.Join(r.Lines, "\n") {
					t.Errorf("%+v", r)
				}
				return
			}
			if r.Snippet != req.Snippet || !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("unplaced: snippet %q, reason %q (want %q)", r.Snippet, r.Reason, tc.reason)
			}
		})
	}
}

// Tiers 1 and 2 first: a quote they place never reaches the model, and
// without a model nothing is asked.
func TestAnchorModelOnlyWhenNeeded(t *testing.T) {
	root, _ := repo(t)
	s := standInEndpoint(t, answerWith(200, chatAnswer("```\nw.Write([]byte(\"ok\"))\n```")))
	ep := &Endpoint{URL: s.URL, Model: "m"}
	r, err := Anchor(context.Background(), root, Request{Path: "server.go", Snippet: "const Burst = 16", Base: "HEAD"}, Options{Model: ep})
	if err != nil || !r.Anchored || r.Tier != TierOtherFile {
		t.Fatalf("%+v %v", r, err)
	}
	r, err = Anchor(context.Background(), root, Request{Path: "server.go", Snippet: "nothing like this", Base: "HEAD"}, Options{})
	if err != nil || r.Anchored {
		t.Fatalf("%+v %v", r, err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests to the model", n)
	}
}
