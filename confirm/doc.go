// Package confirm judges the code graph's call edges by asking the
// workspace's language servers where each call goes: New returns the
// codegraph.Confirmer the hub gives to callers, callees and blast.
//
// An edge is confirmed when the server's definition of the call lands in
// the callee, or, for a call through an interface (a Go interface method,
// a TypeScript interface member), when the callee is among the
// implementations. It is refuted only when the server is definite that
// the call goes elsewhere and cannot reach the callee at run time: in Go,
// a call that resolves to another function or method (an interface
// method's implementations are all known to gopls); in Python, a call
// that resolves to another function, a class, or a method of a class the
// callee's class does not derive from (a Protocol never refutes); in
// TypeScript and JavaScript, a call that resolves to another plain
// function. Anything else (no definition, a call through a variable or a
// field, a method a subclass may override, a language cchub does not
// judge, no server, out of time) is left unanswered, and the note says
// why. What each language's answers mean is in the file of its name
// (lang_go.go, lang_python.go, lang_javascript.go).
//
// Invariants:
//   - A wrong refutation drops a real caller from an answer, so doubt
//     never refutes: only a definite answer does, and every other case
//     leaves the edge unanswered with its reason.
//   - A confirmation keeps to its budget, counted from each call, and to
//     its caller's context; what time cut short is said ("out of time
//     after 20s", "the call was cancelled"), never left blank.
//   - A call site is asked about only if the file the server sees still
//     holds the call's name at the graph's place (a stale site is left
//     unanswered, not asked at whatever is there now).
//   - Each file is told to its server once per confirmation, for all the
//     questions about it, and closed when the confirmation ends; at most
//     six edges are asked about at once.
//
// What it does not do: build or update the graph (codegraph), start,
// stop or talk the protocol to servers (lspmux), or decide which edges are
// worth asking about and what a refuted edge does to an answer
// (codegraph.ConfirmEdges and BlastWith).
package confirm
