// Package demo is `cchub demo`: a scripted tour of every capability, run as
// a real MCP client (the Go SDK's, over stdio) against a `cchub mcp` child
// serving a copy of a bundled workspace. Each step prints the call and what
// a model would receive, with its size in bytes.
//
// It does not test anything: the tests do. It shows a newcomer what an agent
// sees.
package demo
