// Package locate answers "where is it, and what does it say" over one
// workspace, with three tools: glob (files by path pattern), grep (lines by
// regular expression) and read (a file a page at a time, or a directory's
// entries). Outlines and read_symbol are package outline's; the bound on a
// tool result's size, and the spill file beyond it, are the MCP front end's.
//
// Every result it formats is meant for a model's context and writes places
// and lines the one way workspace defines: a place is path:LINE or
// path:START-END (1-based, inclusive, paths relative to the workspace root),
// a listed line is its number, a tab and its text. A result is short, and
// says what it left out and how to get it: read's footer names the offset
// that continues, grep's summary says how many matches were not shown, and
// glob and grep name the directories they could not read. Errors name what
// was wrong and the call that would succeed.
//
// It does not edit files, parse code, talk to language servers, or keep
// state between calls. A caller that keeps state (the hub: a token index,
// a walk its file watcher vouches for) lends it to GrepWith as Sources,
// apart from the options a user gives; it changes what grep reads, never
// what it answers.
package locate
