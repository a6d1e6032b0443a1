; TypeScript and TSX: everything in javascript.scm, which this file
; extends, and what only TypeScript writes.

; import x = require('./a')
((import_statement (import_require_clause (identifier) @alias source: (string (string_fragment) @from)))
 (#set! import "*"))

; An abstract class and its extends or implements clause (a class's is
; read by javascript.scm's pattern)
(abstract_class_declaration name: (_) @bind.class (class_heritage (_) @bind.base))

; A parameter or variable of a named type, whose methods its calls reach:
; function f(s: Store) { s.save() }; const s: Store = load()
(required_parameter pattern: (identifier) @bind.name type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @bind.type))
(optional_parameter pattern: (identifier) @bind.name type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @bind.type))
(variable_declarator name: (identifier) @bind.name type: (type_annotation [(type_identifier) (generic_type) (nested_type_identifier)] @bind.type))
