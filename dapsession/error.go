package dapsession

import (
	"strings"

	"github.com/google/go-dap"
)

// Error is a request the debug adapter refused: its DAP ErrorResponse,
// with the error's id and fields kept, so a caller can tell one failure
// from another by its id (Delve's below) instead of by its words.
type Error struct {
	Command string // the request refused: launch, evaluate, setBreakpoints, …
	// ID is the adapter's id of the error (Delve's: the Delve…
	// constants); 0 when it gave no error body.
	ID int
	// Message is what the adapter said: the error's format with its
	// {variables} filled in, or, without a format, the response's message.
	Message string
	// Summary is the response's short message ("Unable to evaluate
	// expression"), which Delve's format also starts with.
	Summary   string
	Format    string            // the error's format, as sent
	Variables map[string]string // the values of its {variables}
	ShowUser  bool              // the adapter asks that a person see it
	URL       string            // where to read more, when it says
}

func (e *Error) Error() string { return e.Message }

// Delve's error ids (its service/dap/error_ids.go, v1.27.2). Delve gives
// NoDebugIsRunning the id of FailedToLaunch.
const (
	DelveUnsupportedCommand = 9999
	DelveInternalError      = 8888
	DelveNotYetImplemented  = 7777

	DelveFailedToLaunch                = 3000
	DelveFailedToAttach                = 3001
	DelveFailedToInitialize            = 3002
	DelveUnableToSetBreakpoints        = 2002
	DelveUnableToDisplayThreads        = 2003
	DelveUnableToProduceStackTrace     = 2004
	DelveUnableToListLocals            = 2005
	DelveUnableToListArgs              = 2006
	DelveUnableToListGlobals           = 2007
	DelveUnableToLookupVariable        = 2008
	DelveUnableToEvaluateExpression    = 2009
	DelveUnableToHalt                  = 2010
	DelveUnableToGetExceptionInfo      = 2011
	DelveUnableToSetVariable           = 2012
	DelveUnableToDisassemble           = 2013
	DelveUnableToListRegisters         = 2014
	DelveUnableToRunDlvCommand         = 2015
	DelveUnableToReadMemory            = 2016
	DelveUnableToGetDataBreakpointInfo = 2017
	DelveUnableToWriteMemory           = 2018

	DelveNoDebugIsRunning  = 3000
	DelveDebuggeeIsRunning = 4000
	DelveDisconnectError   = 5000
)

// errorOf is the Error of a failed response to command.
func errorOf(command string, msg dap.Message) *Error {
	resp := msg.(dap.ResponseMessage).GetResponse()
	e := &Error{Command: command, Summary: resp.Message, Message: resp.Message}
	if er, ok := msg.(*dap.ErrorResponse); ok && er.Body.Error != nil {
		b := er.Body.Error
		e.ID, e.Format, e.Variables, e.ShowUser, e.URL = b.Id, b.Format, b.Variables, b.ShowUser, b.Url
		if b.Format != "" {
			e.Message = fill(b.Format, b.Variables)
		}
	}
	return e
}

// fill replaces each {name} in format that vars names with its value;
// other braces (a Go value's, in an expression's error) stay as they are.
func fill(format string, vars map[string]string) string {
	if len(vars) == 0 {
		return format
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(format, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(format[open:], '}')
		if end < 0 {
			break
		}
		end += open
		v, ok := vars[format[open+1:end]]
		if !ok {
			b.WriteString(format[:open+1])
			format = format[open+1:]
			continue
		}
		b.WriteString(format[:open])
		b.WriteString(v)
		format = format[end+1:]
	}
	b.WriteString(format)
	return b.String()
}
