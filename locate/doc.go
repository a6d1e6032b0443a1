// Package locate answers "where is it, and what does it say": glob, grep,
// paged read, outline and read_symbol over one workspace, and the output
// bound every tool result passes through.
//
// Every result it formats uses 1-based line numbers and paths relative to
// the workspace root, and is meant for a model's context: short, with a
// footer that says what was left out and how to get it. Errors name what was
// wrong and the call that would succeed.
//
// It does not edit files, talk to language servers, or keep state between
// calls beyond the workspace's shared parse cache.
package locate
