package anchor

// Tier 3: when a quoted snippet matches nowhere exactly, one optional request
// to a chat model asks it to copy, verbatim, the lines of the file's diff that
// the snippet refers to. The model never gives line numbers: its answer is
// only a candidate quote, and the caller anchors that quote with the exact
// tiers again, so a wrong or invented answer can fail to anchor but can never
// point at lines that are not there.
//
// The request contract (what an OpenAI-compatible endpoint receives; tests
// check it byte for byte):
//
//	POST <Endpoint.URL>/chat/completions
//	Content-Type: application/json
//	Authorization: Bearer <Endpoint.Key>        (only when Key is not empty)
//
// A redirect is followed only to the same scheme, host and port; one to
// any other address is an error, and nothing is sent there.
//
//	{"model":MODEL,"messages":[{"role":"system","content":SYSTEM},{"role":"user","content":USER}],"temperature":0}
//
// The body is exactly encoding/json's encoding of that object, keys in that
// order, without HTML escaping ("<", ">" and "&" stay as they are, since code
// is full of them) and without a trailing newline. Temperature 0 because the
// job is copying, not writing: the same question should get the same answer.
// The answer is choices[0].message.content; the response body is read up to
// 1 MiB.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultLLMTimeout bounds a whole LLM request when Endpoint.Timeout is 0: the
// model is a last resort for a single snippet, and a slow or hung endpoint must
// not hold up the review that asked.
const DefaultLLMTimeout = 30 * time.Second

// The environment EndpointFromEnv reads.
const (
	llmEnvURL     = "CCHUB_ANCHOR_LLM_URL"
	llmEnvModel   = "CCHUB_ANCHOR_LLM_MODEL"
	llmEnvKey     = "CCHUB_ANCHOR_LLM_KEY"
	llmEnvTimeout = "CCHUB_ANCHOR_LLM_TIMEOUT"
)

const (
	// llmMaxResponse caps what is read of a response: an answer is a few
	// lines, so anything near this size is not an answer, and an endpoint
	// must not be able to make us buffer without bound.
	llmMaxResponse = 1 << 20
	// llmMaxErrorBody is how much of a failed response's body an error
	// quotes: enough for the endpoint's own explanation, not a whole page.
	llmMaxErrorBody = 200
)

// Messages is the one request the LLM tier makes: a system message and a user message.
type Messages struct{ System, User string }

// llmSystem gives the model one narrow job, so that it copies instead of
// reviewing, explaining or "improving" the code it is shown.
const llmSystem = "You are a code-location assistant. You have a single job: " +
	"given one file's diff and a code snippet quoted by a code reviewer, " +
	"find where in the diff the snippet refers to, and copy those lines verbatim. " +
	"You do not review, explain, fix, complete or rewrite code. " +
	"You answer with exactly one fenced code block and nothing else."

// llmRules are the answer's rules, shaped so that FirstFence can take the
// answer apart and the exact tiers can anchor it: verbatim lines without diff
// markers, one contiguous range, one block, and an empty block rather than a
// guess when nothing fits.
const llmRules = "Rules:\n" +
	"- Copy the relevant lines verbatim from the diff: the same characters and the same indentation; do not fix, reformat, complete or abbreviate them.\n" +
	"- Strip the diff marker at the start of each copied line: the leading \"+\", \"-\" or space (text that is not a diff has no markers: copy its lines as they are). Do not copy diff header lines (\"--- a/...\", \"+++ b/...\", \"@@ ... @@\").\n" +
	"- Copy only the minimal contiguous range of lines that covers what the snippet refers to.\n" +
	"- One location only: if the snippet could refer to several places, choose the one it fits best.\n" +
	"- Output only one fenced code block and nothing else: no explanation, no text before or after it. If the copied lines contain backticks, make the fence longer than any run of backticks in them.\n" +
	"- If nothing in the diff matches the snippet, output an empty fenced code block: a line ``` directly followed by a line ```.\n"

// BuildMessages makes the request's messages for a snippet that did not match in the file at path.
// fileDiff is that file's unified diff (or, without a diff, the file's numbered text: the caller decides; treat it as opaque text),
// snippet the quote that failed to match, comment the review comment ("" when none).
//
// Each embedded text sits in its own fenced block whose fence is longer than
// any run of backticks inside it, so no content (a Markdown file, a Go raw
// string) can end its block early and pass itself off as instructions. The
// comment section is left out when the comment is empty or only white space:
// an empty section would invite the model to guess at it.
func BuildMessages(path, fileDiff, snippet, comment string) Messages {
	var b strings.Builder
	b.WriteString("Find where in the diff below the reviewer's snippet refers to.\n\n")
	fmt.Fprintf(&b, "File: %s\n\n", path)
	b.WriteString("Diff of the file:\n")
	llmWriteBlock(&b, fileDiff)
	b.WriteString("\nSnippet quoted by the reviewer (it did not match the file exactly: it may be abbreviated, reformatted, paraphrased or slightly wrong):\n")
	llmWriteBlock(&b, snippet)
	if strings.TrimSpace(comment) != "" {
		b.WriteString("\nThe reviewer's comment on the snippet:\n")
		llmWriteBlock(&b, comment)
	}
	b.WriteString("\n")
	b.WriteString(llmRules)
	return Messages{System: llmSystem, User: b.String()}
}

// llmWriteBlock writes text as a fenced block. One trailing newline of text is
// dropped (the closing fence supplies it), so "a\n" and "a" embed alike.
func llmWriteBlock(b *strings.Builder, text string) {
	text = strings.TrimSuffix(text, "\n")
	fence := llmFenceFor(text)
	b.WriteString(fence)
	b.WriteString("\n")
	if text != "" {
		b.WriteString(text)
		b.WriteString("\n")
	}
	b.WriteString(fence)
	b.WriteString("\n")
}

// llmFenceFor returns a backtick fence longer than the longest run of
// backticks in text (at least three): a closing fence must be at least as long
// as the opening one, so no line of text can close it. Tildes inside cannot
// close a backtick fence at all.
func llmFenceFor(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Completer answers Messages with the model's text. It is an interface so that
// the anchoring logic can be driven by a fake in tests and by any model API.
type Completer interface {
	Complete(ctx context.Context, m Messages) (string, error)
}

// Endpoint is an OpenAI-compatible chat-completions endpoint: that API is the
// one most hosted and local model servers (OpenAI, vLLM, llama.cpp, Ollama,
// LiteLLM...) speak, so one client reaches all of them.
type Endpoint struct {
	URL     string        // base URL, e.g. https://api.openai.com/v1 ; the request goes to URL + "/chat/completions" (no double slash if URL ends with "/")
	Model   string        // the model's name, sent as "model"
	Key     string        // sent as "Authorization: Bearer KEY" when not empty
	Timeout time.Duration // whole request; 0 → DefaultLLMTimeout (30 s)
	Client  *http.Client  // nil → a client of its own
}

// EndpointFromEnv reads CCHUB_ANCHOR_LLM_URL, CCHUB_ANCHOR_LLM_MODEL, CCHUB_ANCHOR_LLM_KEY, CCHUB_ANCHOR_LLM_TIMEOUT (a Go duration, e.g. "20s").
// ok is false (no endpoint, no request ever) unless both URL and MODEL are set. A bad timeout is an error that says what was wrong and the form expected.
//
// The LLM tier is opt-in: sending code to a model is the user's decision, so
// without both variables nothing is sent and there is no error. Once it is
// opted into, a URL that is not http(s) or a timeout that is not a positive Go
// duration is an error rather than something quietly replaced, since the
// user meant something by it. (The timeout is not checked when the tier is
// off: a stray setting must not break anchoring that never uses it.) Values
// are trimmed of surrounding white space.
func EndpointFromEnv() (e *Endpoint, ok bool, err error) {
	rawURL := strings.TrimSpace(os.Getenv(llmEnvURL))
	model := strings.TrimSpace(os.Getenv(llmEnvModel))
	if rawURL == "" || model == "" {
		return nil, false, nil
	}
	e = &Endpoint{URL: rawURL, Model: model, Key: strings.TrimSpace(os.Getenv(llmEnvKey))}
	if _, _, err := e.chatURL(); err != nil {
		return nil, false, fmt.Errorf("anchor: %s: %w", llmEnvURL, err)
	}
	if raw := strings.TrimSpace(os.Getenv(llmEnvTimeout)); raw != "" {
		d, err := time.ParseDuration(raw)
		switch {
		case err != nil:
			return nil, false, fmt.Errorf("anchor: %s=%q is not a Go duration; expected a form such as 20s, 1m30s or 500ms", llmEnvTimeout, raw)
		case d <= 0:
			return nil, false, fmt.Errorf("anchor: %s=%q is not positive; expected a duration above zero such as 20s, 1m30s or 500ms", llmEnvTimeout, raw)
		}
		e.Timeout = d
	}
	return e, true, nil
}

// llmDefaultClient is the client of Endpoints without one: its own transport
// (a clone of the default one), so that what other code does to
// http.DefaultClient or its connections does not reach the LLM tier, and
// connections to the endpoint are still reused between snippets.
var llmDefaultClient = sync.OnceValue(func() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return &http.Client{Transport: t.Clone()}
	}
	return &http.Client{}
})

// sameAddressOnly is the LLM client's redirect policy: the key (and the
// code in the request) goes to the configured address and nowhere else,
// so a redirect is followed only within that address, scheme, host and
// port alike (curl's CVE-2022-27776 was a key sent on to the same host
// on another port; Go's client forwards Authorization there too). Any
// other is refused before anything is sent to it.
func sameAddressOnly(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return fmt.Errorf("the model endpoint redirected 10 times; set %s to the final address", llmEnvURL)
	}
	if to, from := address(req.URL), address(via[0].URL); to != from {
		return fmt.Errorf("the model endpoint redirected to %s; cchub does not follow redirects with your key: set %s to the final address", to, llmEnvURL)
	}
	return nil
}

// address is u's scheme://host:port, the port made explicit, the host in
// lower case: what decides where a request goes.
func address(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// errLLMTimedOut is the cause Complete gives its own deadline, to tell its
// timeout apart from the caller's context ending.
var errLLMTimedOut = errors.New("anchor: LLM request timed out")

// Complete sends m as described by the request contract at the top of this
// file and returns choices[0].message.content as it came.
//
// Every error names the endpoint's host and never the key; a response body
// quoted in an error has the key blanked out, in case the endpoint echoes the
// request. When the request runs out of Timeout, the error says "timed out
// after" the timeout and wraps context.DeadlineExceeded; when ctx ends first,
// the error wraps ctx's cause (context.Canceled, say).
func (e *Endpoint) Complete(ctx context.Context, m Messages) (string, error) {
	target, host, err := e.chatURL()
	if err != nil {
		return "", err
	}
	if e.Model == "" {
		return "", fmt.Errorf("anchor: LLM endpoint %s: no model given", host)
	}
	body, err := llmRequestBody(e.Model, m)
	if err != nil {
		return "", fmt.Errorf("anchor: LLM endpoint %s: encoding the request: %w", host, err)
	}
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultLLMTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errLLMTimedOut)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("anchor: LLM endpoint %s: %w", host, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.Key != "" {
		req.Header.Set("Authorization", "Bearer "+e.Key)
	}
	client := e.Client
	if client == nil {
		client = llmDefaultClient()
	}
	// A copy, so the caller's client keeps its own policy elsewhere.
	guarded := *client
	guarded.CheckRedirect = sameAddressOnly
	resp, err := guarded.Do(req)
	if err != nil {
		return "", e.transportError(ctx, host, timeout, "request failed", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, llmMaxResponse+1))
	if err != nil {
		return "", e.transportError(ctx, host, timeout, "reading the response", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("anchor: LLM endpoint %s: HTTP %s", host, resp.Status)
		if quote := e.quoteBody(data); quote != "" {
			msg += ": " + quote
		}
		return "", errors.New(msg)
	}
	if len(data) > llmMaxResponse {
		return "", fmt.Errorf("anchor: LLM endpoint %s: response larger than 1 MiB", host)
	}
	var answer struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		msg := fmt.Sprintf("anchor: LLM endpoint %s: unreadable JSON in the response (%v)", host, err)
		if quote := e.quoteBody(data); quote != "" {
			msg += ": " + quote
		}
		return "", errors.New(msg)
	}
	if len(answer.Choices) == 0 {
		if answer.Error != nil && answer.Error.Message != "" {
			return "", fmt.Errorf("anchor: LLM endpoint %s: no choices in the response; it says: %s", host, e.quoteBody([]byte(answer.Error.Message)))
		}
		return "", fmt.Errorf("anchor: LLM endpoint %s: no choices in the response", host)
	}
	first := answer.Choices[0]
	if strings.TrimSpace(first.Message.Content) == "" {
		if first.FinishReason != "" {
			return "", fmt.Errorf("anchor: LLM endpoint %s: empty content in the answer (finish_reason %q)", host, first.FinishReason)
		}
		return "", fmt.Errorf("anchor: LLM endpoint %s: empty content in the answer", host)
	}
	return first.Message.Content, nil
}

// chatURL checks e.URL and returns the chat-completions URL and the host that
// errors name. JoinPath keeps a query string (some gateways carry an API
// version there) and avoids a double slash after a trailing "/".
func (e *Endpoint) chatURL() (target, host string, err error) {
	u, perr := url.Parse(e.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("anchor: LLM endpoint URL %q is not an http(s) URL such as https://api.openai.com/v1", e.URL)
	}
	return u.JoinPath("chat/completions").String(), u.Host, nil
}

// transportError explains a failure to send or to read: our timeout, the
// caller's context, or the network. The *url.Error wrapper is dropped since it
// repeats the whole URL; the host is named instead.
func (e *Endpoint) transportError(ctx context.Context, host string, timeout time.Duration, doing string, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, errLLMTimedOut) {
			return fmt.Errorf("anchor: LLM endpoint %s: timed out after %v: %w", host, timeout, context.DeadlineExceeded)
		}
		return fmt.Errorf("anchor: LLM endpoint %s: %s: %w", host, doing, cause)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("anchor: LLM endpoint %s: %s: %w", host, doing, err)
}

// quoteBody quotes up to llmMaxErrorBody bytes of a response body for an
// error, on one line, with the key blanked out and a rune never cut in half.
func (e *Endpoint) quoteBody(data []byte) string {
	s := strings.TrimSpace(string(data))
	if e.Key != "" {
		s = strings.ReplaceAll(s, e.Key, "[key]")
	}
	if s == "" {
		return ""
	}
	if len(s) > llmMaxErrorBody {
		cut := llmMaxErrorBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// llmRequest is the request body; a struct, so the keys keep this order.
type llmRequest struct {
	Model       string       `json:"model"`
	Messages    []llmMessage `json:"messages"`
	Temperature float64      `json:"temperature"`
}

type llmMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// llmRequestBody encodes the request without HTML escaping and without the
// Encoder's trailing newline, as the contract says.
func llmRequestBody(model string, m Messages) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(llmRequest{
		Model: model,
		Messages: []llmMessage{
			{Role: "system", Content: m.System},
			{Role: "user", Content: m.User},
		},
		Temperature: 0,
	})
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// FirstFence returns the content of the answer's first fenced code block (``` or ~~~, three or more, with an optional
// language tag / info string after the opening fence, closing fence of the same char and at least the same length),
// without the fences, the info string or a trailing newline; ok false when there is none (an unclosed fence counts as none).
//
// Models wrap code in Markdown however told, often with a sentence around it,
// so the answer is taken apart as Markdown would (CommonMark's fence rules: a
// fence is indented at most three spaces, a backtick fence's info string has
// no backtick, content lines lose up to the opening fence's indentation, a
// closing fence has nothing after it but white space). Line ends are given as
// "\n" whatever the answer used (CRLF included), since the caller compares
// lines. An unclosed fence yields nothing rather than the rest of the answer:
// a truncated answer is not a quote to anchor.
func FirstFence(answer string) (code string, ok bool) {
	lines := strings.Split(answer, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	for i, line := range lines {
		indent, char, n, isFence := llmOpeningFence(line)
		if !isFence {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if llmClosesFence(lines[j], char, n) {
				content := lines[i+1 : j]
				out := make([]string, len(content))
				for k, c := range content {
					out[k] = llmTrimIndent(c, indent)
				}
				return strings.Join(out, "\n"), true
			}
		}
		return "", false
	}
	return "", false
}

// llmOpeningFence reports whether line opens a fenced code block, and with
// what indentation, character and fence length.
func llmOpeningFence(line string) (indent int, char byte, n int, ok bool) {
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent == len(line) {
		return 0, 0, 0, false
	}
	char = line[indent]
	if char != '`' && char != '~' {
		return 0, 0, 0, false
	}
	for indent+n < len(line) && line[indent+n] == char {
		n++
	}
	if n < 3 {
		return 0, 0, 0, false
	}
	if char == '`' && strings.ContainsRune(line[indent+n:], '`') {
		return 0, 0, 0, false
	}
	return indent, char, n, true
}

// llmClosesFence reports whether line closes a block opened by n chars.
func llmClosesFence(line string, char byte, n int) bool {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i > 3 {
		return false
	}
	run := 0
	for i+run < len(line) && line[i+run] == char {
		run++
	}
	return run >= n && strings.TrimSpace(line[i+run:]) == ""
}

// llmTrimIndent removes up to indent leading spaces.
func llmTrimIndent(line string, indent int) string {
	for k := 0; k < indent && strings.HasPrefix(line, " "); k++ {
		line = line[1:]
	}
	return line
}
