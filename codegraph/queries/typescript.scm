; TypeScript and TSX: everything in javascript.scm, which this file
; extends, and what only TypeScript writes.

; import x = require('./a')
((import_statement (import_require_clause (identifier) @alias source: (string (string_fragment) @from)))
 (#set! import "*"))
