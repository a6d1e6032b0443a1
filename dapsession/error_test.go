package dapsession

import (
	"testing"

	"github.com/google/go-dap"
)

// An ErrorResponse keeps its id and fields; its message is the format with
// the variables it names filled in, other braces left as they were, or
// the response's message when there is no format.
func TestDebugErrorOfResponse(t *testing.T) {
	withBody := &dap.ErrorResponse{Response: dap.Response{Command: "evaluate", Message: "Unable to evaluate"}}
	withBody.Body.Error = &dap.ErrorMessage{Id: 2009, Format: "{what} is not {_kind}: main.tally {name: {x}}", Variables: map[string]string{"what": "nosuch", "_kind": "a symbol"}, ShowUser: true}
	e := errorOf("evaluate", withBody)
	if e.ID != DelveUnableToEvaluateExpression || e.Command != "evaluate" || e.Summary != "Unable to evaluate" || !e.ShowUser ||
		e.Error() != "nosuch is not a symbol: main.tally {name: {x}}" || e.Format != withBody.Body.Error.Format {
		t.Errorf("with a body: %+v %q", e, e.Error())
	}
	bare := &dap.ErrorResponse{Response: dap.Response{Command: "next", Message: "not supported by cchub"}}
	if e := errorOf("next", bare); e.ID != 0 || e.Error() != "not supported by cchub" {
		t.Errorf("without a body: %+v", e)
	}
}
