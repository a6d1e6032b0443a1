// Package stdiotest speaks newline-delimited JSON-RPC to a server the way
// no SDK client would, a raw line at a time, for the tests of the stdio
// transport and of the servers it carries (in the test process or as a
// `cchub mcp` process).
//
// It is for tests only. It imports nothing of cchub's, so the transport's
// own tests can use it too, and it knows no server: StartServer runs the
// serve function it is given.
package stdiotest
