package lang

// otherCode are the extensions of source files in languages the table
// does not hold: cchub has no grammar and no convention for them, but
// knows them for code (shell scripts, Kotlin, Swift, SQL, …).
var otherCode = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".kt": true, ".kts": true,
	".swift": true, ".php": true, ".pl": true, ".pm": true, ".lua": true, ".scala": true, ".cs": true, ".fs": true,
	".m": true, ".mm": true, ".r": true, ".jl": true, ".ex": true, ".exs": true, ".erl": true, ".hs": true,
	".ml": true, ".dart": true, ".zig": true, ".nim": true, ".pyx": true, ".pxd": true, ".cu": true,
	".f90": true, ".groovy": true, ".clj": true, ".vue": true, ".svelte": true, ".proto": true, ".sql": true}

// documents are the extensions of prose.
var documents = map[string]bool{".md": true, ".rst": true, ".adoc": true, ".txt": true}

// IsCode says the file at p is source code: of a language in the table,
// or of one cchub knows only by its extension (a shell script, Kotlin,
// Swift, SQL, a protocol buffer, …).
func IsCode(p string) bool { return Of(p) != nil || otherCode[Ext(p)] }

// IsDocument says the file at p is prose: Markdown, reStructuredText,
// AsciiDoc or plain text.
func IsDocument(p string) bool { return documents[Ext(p)] }
