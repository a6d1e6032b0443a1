; Calls: a bare name, or a selector (pkg.Func, value.Method).
(call_expression function: (identifier) @name) @call
(call_expression function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @call
; Imports: the path, and the alias when there is one.
(import_spec name: (package_identifier) @alias path: (interpreted_string_literal) @import)
(import_spec !name path: (interpreted_string_literal) @import)
