// Package outline answers "what is in this file, and where": a file's
// symbols with exact 1-based line ranges, a directory's map of its files,
// and read_symbol, which finds one symbol by name (path:Name,
// path:Type.method, path:line:Name or path:LINE) and returns its lines.
//
// The extraction is per language (lang_<name>.go) over trees from the
// shared parse cache (package syntax); what the languages share (docs,
// signatures, blocks, imports) is in extract.go. The code graph will
// extract the same definitions, so the Symbol type is the contract.
//
// Text forms are for a model's context. The lean outline, the default,
// is a line per symbol: START-END, kind, name and signature, with groups
// of variables folded onto one line; the detail form adds doc summaries
// after the language's own comment marker, decorators, values, group
// members and the blocks of long functions. JSON is always complete.
//
// It does not cut its results to a size (the MCP front end bounds what a model
// gets), read files outside the workspace root, or keep state beyond the
// parse cache.
package outline
